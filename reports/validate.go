package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/trapline/trapline/results"
)

// Size limits of the files a gate reads (summary.json, a baseline, junit.xml): a whole catalog's
// summary with repeated trials is a few MiB, so these are far above any file trapline writes and far
// below what would exhaust a CI runner. Reading costs a small multiple of the file's size.
const (
	// MaxSummaryBytes bounds a summary or baseline summary.
	MaxSummaryBytes = 32 << 20
	// MaxJUnitBytes bounds a JUnit file.
	MaxJUnitBytes = 64 << 20
)

// ErrIncompleteRun is returned (wrapped) for a summary that is not a whole run's: its run was
// interrupted, or its folder is marked in progress (InProgressFile). A gate must not decide on it.
var ErrIncompleteRun = errors.New("not the summary of a finished run")

// InProgressFile is the marker `trapline run --out DIR` writes into DIR while it runs and removes when
// its summary is written: a gate refuses a summary beside it.
const InProgressFile = ".trapline-run-in-progress"

// Run states of a Summary.
const (
	// StateComplete ("" in the file) is a run that ran every selected arm to its end.
	StateComplete = ""
	// StateInterrupted is a run stopped by a signal: its entries are the arms that ended before it.
	StateInterrupted = "interrupted"
)

// readLimited reads at most limit bytes of the file at path, or fails naming the file, its size and
// the limit. The limit is enforced on the bytes read, not on what the file system says of its size.
func readLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reports: read %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		// Refused before reading a byte; the read below still enforces the limit (a file that grows, a
		// pipe, a size the file system gets wrong).
		return nil, fmt.Errorf("reports: %s: %d bytes, over the %s limit of %d bytes (%s)", path, st.Size(), what, limit, HumanBytes(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reports: read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		size := fmt.Sprintf("more than %d bytes", limit)
		if st, err := f.Stat(); err == nil && st.Size() > limit {
			size = fmt.Sprintf("%d bytes", st.Size())
		}
		return nil, fmt.Errorf("reports: %s: %s, over the %s limit of %d bytes (%s)", path, size, what, limit, HumanBytes(limit))
	}
	return b, nil
}

// decodeStrict decodes one JSON value from b into v, refusing unknown fields and anything after the
// value; errors name the file and the line.
func decodeStrict(path string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("reports: %s%s: %w", path, lineOf(b, err, dec.InputOffset()), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("reports: %s%s: data after the JSON value", path, lineAt(b, dec.InputOffset()))
	}
	return nil
}

// lineOf is ":LINE" of a decoding error (its offset when it has one, else where the decoder stopped).
func lineOf(b []byte, err error, at int64) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		at = syn.Offset
	case errors.As(err, &typ):
		at = typ.Offset
	}
	return lineAt(b, at)
}

func lineAt(b []byte, at int64) string {
	if at < 0 || at > int64(len(b)) {
		return ""
	}
	return fmt.Sprintf(":%d", bytes.Count(b[:at], []byte("\n"))+1)
}

// Counts are the verdicts of a summary's entries, counted from the entries (never from the counters a
// file carries).
type Counts struct{ Passed, Failed, Broken, Interrupted int }

// Tally counts the verdicts of entries: the one count every gate decides on.
func Tally(entries []Entry) Counts {
	var c Counts
	for _, e := range entries {
		switch e.Status {
		case StatusPass:
			c.Passed++
		case StatusBroken:
			c.Broken++
		case StatusInterrupted:
			c.Interrupted++
		default:
			c.Failed++ // fail, and anything unknown: never a pass
		}
	}
	return c
}

func (c Counts) String() string {
	s := fmt.Sprintf("passed %d, failed %d, broken %d", c.Passed, c.Failed, c.Broken)
	if c.Interrupted > 0 {
		s += fmt.Sprintf(", interrupted %d", c.Interrupted)
	}
	return s
}

// knownResults are the verdict words results.Judge gives; "" is an entry without one (broken, or
// written before schema version 2).
var knownResults = []results.Verdict{"", results.Held, results.Breached, results.Unguarded, results.Fired, results.Silent,
	results.Caught, results.NotExercised, results.Broken}

// passingResults are, per arm, the judged results that pass it (results.Judge): what a pass entry
// may say it was; an unfenced arm passes whatever it was (measured, never gated).
func passingResults(arm results.Arm) []results.Verdict {
	switch arm {
	case results.Guarded, results.Fenced, results.Blackbox:
		return []results.Verdict{results.Held}
	case results.Control:
		return []results.Verdict{results.Fired}
	}
	return knownResults
}

// maxProblems is how many problems Validate names before it counts the rest.
const maxProblems = 10

// Validate checks that a summary says nothing about itself its entries contradict, and nothing a
// gate cannot read: every entry a known arm, verdict and result (a pass entry only with a result
// that passes its arm), one entry per trap × arm × agent, a repeated arm's trials consistent with
// its verdict, the counters and the utility rows equal to what the entries give, and a known run
// state. It returns every problem found (the first maxProblems), joined; nil when there is none.
func Validate(s Summary) error {
	var probs []string
	add := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	seen := map[key]int{}
	for i, e := range s.Entries {
		name := fmt.Sprintf("entry %d (%s %s)", i+1, e.Trap, ArmLabel(e))
		if e.Trap == "" {
			add("entry %d: no trap id", i+1)
		}
		if !slices.Contains(results.Arms(), results.Arm(e.Arm)) {
			add("%s: unknown arm %q (want one of %v)", name, e.Arm, results.Arms())
		}
		switch e.Status {
		case StatusPass, StatusFail, StatusBroken, StatusInterrupted:
		default:
			add("%s: unknown verdict %q (want %s, %s, %s or %s)", name, e.Status, StatusPass, StatusFail, StatusBroken, StatusInterrupted)
		}
		switch {
		case !slices.Contains(knownResults, results.Verdict(e.Result)):
			add("%s: unknown result %q", name, e.Result)
		case e.Status == StatusPass && e.Result != "" && !slices.Contains(passingResults(results.Arm(e.Arm)), results.Verdict(e.Result)):
			add("%s: verdict pass contradicts its result %q, which does not pass the %s arm", name, e.Result, e.Arm)
		}
		switch results.Attribution(e.Attribution) {
		case "", results.Refrained, results.Stopped:
		default:
			add("%s: unknown attribution %q", name, e.Attribution)
		}
		if e.Reused != nil && (results.Arm(e.Arm).UnderTest() || e.Status != StatusPass) {
			add("%s: a reused proof must be a passing adversary's arm (control, guarded), not %s %s", name, e.Arm, e.Status)
		}
		k := keyOf(e)
		if j, dup := seen[k]; dup {
			add("%s: the same trap, arm and agent as entry %d (one entry per arm; trials go in one repeated entry)", name, j)
		} else {
			seen[k] = i + 1
		}
		for _, p := range trialProblems(e) {
			add("%s: %s", name, p)
		}
		for _, p := range append(rejudge(e, s.V), trialsWithoutResult(e, s.V)...) {
			add("%s: %s", name, p)
		}
	}
	got := Tally(s.Entries)
	if said := (Counts{s.Passed, s.Failed, s.Broken, s.Interrupted}); said != got {
		add("its counters say %s, but its %d entries are %s", said, len(s.Entries), got)
	}
	if s.Utility != nil {
		if want := UtilityOf(s); !reflect.DeepEqual(s.Utility, want) && !(len(s.Utility) == 0 && len(want) == 0) {
			add("its utility rows %s contradict its entries, which give %s", utilityText(s.Utility), utilityText(want))
		}
	}
	switch s.State {
	case StateComplete, StateInterrupted:
	default:
		add("unknown run state %q (want %q or %q)", s.State, StateComplete, StateInterrupted)
	}
	if len(probs) == 0 {
		return nil
	}
	if n := len(probs) - maxProblems; n > 0 {
		probs = append(probs[:maxProblems], fmt.Sprintf("and %d more problem(s)", n))
	}
	return errors.New(strings.Join(probs, "; "))
}

func utilityText(rows []UtilityRow) string {
	if len(rows) == 0 {
		return "none"
	}
	var out []string
	for _, u := range rows {
		out = append(out, u.Label()+": "+u.String())
	}
	return "[" + strings.Join(out, " | ") + "]"
}

// trialProblems checks a repeated entry's trials against its merged verdict (pass^k: pass only when
// every trial passed, broken when one broke).
func trialProblems(e Entry) []string {
	var out []string
	switch {
	case e.Repeat < 0 || e.Repeat == 1:
		return []string{fmt.Sprintf("repeat %d (want 0 for a single run, or 2 or more trials)", e.Repeat)}
	case e.Repeat == 0:
		if e.TrialsPassed != 0 || len(e.Trials) != 0 {
			out = append(out, fmt.Sprintf("%d trial(s) recorded (%d passed) on an arm that did not repeat", len(e.Trials), e.TrialsPassed))
		}
		return out
	}
	if e.TrialsPassed < 0 || e.TrialsPassed > e.Repeat {
		out = append(out, fmt.Sprintf("%d of %d trials passed", e.TrialsPassed, e.Repeat))
	}
	if e.Status == StatusPass && e.TrialsPassed != e.Repeat {
		out = append(out, fmt.Sprintf("verdict pass, but only %d of %d trials passed (pass^k needs all)", e.TrialsPassed, e.Repeat))
	}
	if len(e.Trials) == 0 {
		return out // a summary written before trials were kept
	}
	if len(e.Trials) != e.Repeat {
		out = append(out, fmt.Sprintf("repeat %d, but %d trial(s) recorded", e.Repeat, len(e.Trials)))
	}
	nums := map[int]bool{}
	passed, broken := 0, false
	for _, t := range e.Trials {
		if t.N < 1 || t.N > len(e.Trials) || nums[t.N] {
			out = append(out, fmt.Sprintf("trial number %d duplicated or out of 1..%d", t.N, len(e.Trials)))
		}
		nums[t.N] = true
		switch t.Status {
		case StatusPass:
			passed++
		case StatusBroken, StatusInterrupted:
			broken = true
		case StatusFail:
		default:
			out = append(out, fmt.Sprintf("trial %d: unknown verdict %q", t.N, t.Status))
		}
		if !slices.Contains(knownResults, results.Verdict(t.Result)) {
			out = append(out, fmt.Sprintf("trial %d: unknown result %q", t.N, t.Result))
		} else if t.Status == StatusPass && t.Result != "" && !slices.Contains(passingResults(results.Arm(e.Arm)), results.Verdict(t.Result)) {
			out = append(out, fmt.Sprintf("trial %d: verdict pass contradicts its result %q", t.N, t.Result))
		}
	}
	if passed != e.TrialsPassed {
		out = append(out, fmt.Sprintf("says %d trial(s) passed, its trials show %d", e.TrialsPassed, passed))
	}
	want := StatusFail
	switch {
	case broken:
		want = e.Status // broken or interrupted: either names a trial that did not end judged
		if want != StatusBroken && want != StatusInterrupted {
			want = StatusBroken
		}
	case passed == len(e.Trials):
		want = StatusPass
	}
	if e.Status != want {
		out = append(out, fmt.Sprintf("verdict %s, but its trials give %s", e.Status, want))
	}
	return out
}

// checkComplete refuses a summary that is not a finished run's: an interrupted one, or one beside
// the in-progress marker of a run still writing its folder (or killed before it could finish).
func checkComplete(path string, s Summary) error {
	if s.State == StateInterrupted {
		return fmt.Errorf("reports: %s: %w: the run was interrupted (a signal stopped it after %d arm(s)); run it again to a finish", path, ErrIncompleteRun, len(s.Entries))
	}
	marker := filepath.Join(filepath.Dir(path), InProgressFile)
	if _, err := os.Lstat(marker); err == nil {
		return fmt.Errorf("reports: %s: %w: %s is there, so a run is writing this folder or was killed before its end; wait for it, or run again", path, ErrIncompleteRun, marker)
	}
	return nil
}
