// Package reports turns trap runs into what CI and reviewers read: a versioned JSON summary, a
// plain-text table, a self-contained HTML report, a comparison against a baseline summary and a flake
// check over repeated runs. JUnit comes from Ginkgo's reporter, enriched with the same entries (see
// Properties and FailureMessage).
//
//	s := reports.Summary{Entries: []reports.Entry{reports.FromResult(res)}}
//	s.Finish(time.Now())
//	_ = reports.WriteJSON("reports/out/summary.json", s)
//	_ = reports.Table(os.Stdout, s)
//	_ = reports.WriteHTMLFile("reports/out/report.html", s, reports.HTMLOptions{})
package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// SchemaVersion is the version of the summary format this trapline writes. Version 2 added
// Provenance, the repeat count and the judged result fields of Entry; version 3 the refused attempts
// of an agent under test (Entry.RefusedAttempts: absent in version 2 means unknown, not none).
// ReadJSON still reads versions 1 and 2.
const SchemaVersion = 3

// RefusedAttemptsVersion is the first summary version whose entries record the refused attempts.
const RefusedAttemptsVersion = 3

// minSchemaVersion is the oldest summary version ReadJSON reads.
const minSchemaVersion = 1

// EntryName is the Ginkgo report entry under which specs attach their Entry.
const EntryName = "trapline.result"

// Statuses of an Entry (Entry.Status, Trial.Status): the gate's word for an arm, not a results.Verdict.
const (
	// StatusPass: the arm proved its claim (guarded: the fence held; control: the trap fired).
	StatusPass = "pass"
	// StatusFail: the arm did not prove its claim.
	StatusFail = "fail"
	// StatusBroken: the run could not be carried out (the fixture or the environment broke); it says
	// nothing about the trap.
	StatusBroken = "broken"
	// StatusInterrupted: a signal stopped the run of the arm before it ended (trapline run's
	// SIGINT or SIGTERM); it says nothing about the trap, and its summary is refused by every gate.
	StatusInterrupted = "interrupted"
)

// Entry is one trap × arm result. Fields added after version 1 are optional (omitempty), so version 1
// readers and writers stay compatible.
type Entry struct {
	Trap     string `json:"trap"`
	Category string `json:"category"`
	Incident string `json:"incident,omitempty"` // the real failure the trap models
	Task     string `json:"task,omitempty"`     // what the agent was asked to do
	Arm      string `json:"arm"`
	// Agent is the agent under test (a black-box run); "" is the reference agent, as in every summary
	// written before agents had names.
	Agent string `json:"agent,omitempty"`
	// Status is the gate's status of the arm: StatusPass, StatusFail, StatusBroken or StatusInterrupted
	// (JSON "verdict", kept for the summaries users keep; it is not a results.Verdict, which is Result).
	Status         string        `json:"verdict"`
	Why            string        `json:"why"`
	Outcome        string        `json:"outcome"`
	ExpectedGuards []policy.Rule `json:"expected_guards"`
	GuardsFired    []policy.Rule `json:"guards_fired"`
	Effects        []string      `json:"effects"` // forbidden effects observed, "observer kind METHOD path"
	CanaryHits     int           `json:"canary_hits"`
	ProxyDenied    int           `json:"proxy_denied"`
	Evidence       string        `json:"evidence"`
	Seconds        float64       `json:"seconds"`
	// DeliveryTrouble is the agent's own delivery trouble (results.Result.DeliveryTrouble), one
	// "rule: reason" each: actions the page was not ready for, never guards of the fence.
	DeliveryTrouble []string `json:"delivery_trouble,omitempty"`
	// Result is results.Judge's verdict word (held, breached, unguarded, fired, silent, caught, not
	// exercised); Attribution, Rule and Layer say why a held agent held (refrained, or stopped by Rule
	// at Layer). Empty in summaries written before schema version 2 and in broken entries.
	Result      string       `json:"result,omitempty"`
	Attribution string       `json:"attribution,omitempty"`
	Rule        policy.Rule  `json:"rule,omitempty"`
	Layer       policy.Layer `json:"layer,omitempty"`
	// RefusedAttempts names every attempt of an agent under test the fence refused
	// (results.Judgement.Refused, Attempt.Identity), each once; a repeated arm's, those of all its
	// trials. A held agent refrained exactly when it is empty. Schema version 3 and later.
	RefusedAttempts []string `json:"refused_attempts,omitempty"`
	// TaskMeasured says the trap has a task success condition; TaskCompleted that it held after the
	// run; CompletedUnderPolicy that the task was done and nothing forbidden happened (CuP).
	TaskMeasured         bool `json:"task_measured,omitempty"`
	TaskCompleted        bool `json:"task_completed,omitempty"`
	CompletedUnderPolicy bool `json:"completed_under_policy,omitempty"`
	// Repeat is the number of trials of a repeated arm (trapline run --repeat K), judged pass^k: the
	// entry passes only if all Repeat trials passed; TrialsPassed counts those that did. 0 for a
	// single run.
	Repeat       int `json:"repeat,omitempty"`
	TrialsPassed int `json:"trials_passed,omitempty"`
	// Probes are the state probe's readings of the user's app before and after the arm, as numbers
	// (results.Result.Probes), in every arm whose trap has a probe; nil otherwise.
	Probes []results.ProbeReading `json:"probes,omitempty"`
	// Trials are a repeated arm's trials, each with its own verdict and attribution, in order (nil
	// for a single run, and in summaries written before trials were kept).
	Trials []Trial `json:"trials,omitempty"`
	// DoneUnmet says the agent's planner said done but the task's postcondition did not hold
	// (results.Result.Postcondition unmet).
	DoneUnmet bool `json:"done_unmet,omitempty"`
	// Reused says this adversary's arm (control, guarded) was not run again: its proof was kept from
	// an earlier run whose every input was the same (trapline run's proof cache, docs/proof-cache.md),
	// and its evidence copied from there. Nil for an arm this run ran.
	Reused *ReusedProof `json:"reused,omitempty"`
	// UnmatchedForbidden are the trap's forbidden entries that matched nothing in a control arm
	// (results.Result.UnmatchedForbidden): a warning to the pack's author, never the verdict.
	UnmatchedForbidden []string `json:"unmatched_forbidden,omitempty"`
	// AppWrites are the requests other than GET, HEAD and OPTIONS that reached a user's own app in
	// the arm, as "METHOD host/path -> status" (the upstream observer's effects).
	AppWrites []string `json:"app_writes,omitempty"`
}

// ReusedProof names the earlier run that made a reused proof (Entry.Reused).
type ReusedProof struct {
	// Run is the output folder of the run that made the proof; Made when it was made.
	Run  string    `json:"run"`
	Made time.Time `json:"made"`
	// Key is the proof's key, the SHA-256 of every input it depends on.
	Key string `json:"key"`
	// Seconds is what the arm took when it was made (Entry.Seconds is what reusing it took).
	Seconds float64 `json:"seconds"`
}

// reusedLabel is how the table, the progress lines and the HTML report say an arm's proof was
// reused, "" when it was not.
func reusedLabel(e Entry) string {
	if e.Reused == nil {
		return ""
	}
	return fmt.Sprintf("reused proof, made %s by %s", e.Reused.Made.UTC().Format("2006-01-02 15:04 UTC"), relative(e.Reused.Run))
}

// Trial is one trial of a repeated arm: what Entry says of a single run, for that trial.
type Trial struct {
	// N is the trial's number, 1 to Repeat.
	N           int          `json:"n"`
	Status      string       `json:"verdict"` // the trial's gate status (Entry.Status)
	Result      string       `json:"result,omitempty"`
	Attribution string       `json:"attribution,omitempty"`
	Rule        policy.Rule  `json:"rule,omitempty"`
	Layer       policy.Layer `json:"layer,omitempty"`
	Why         string       `json:"why"`
	Outcome     string       `json:"outcome,omitempty"`
	// RefusedAttempts are the trial's refused attempts (Entry.RefusedAttempts).
	RefusedAttempts []string `json:"refused_attempts,omitempty"`
	Evidence        string   `json:"evidence"`
	Seconds         float64  `json:"seconds"`
	// TaskMeasured, TaskCompleted and CompletedUnderPolicy are the trial's utility (see Entry).
	TaskMeasured         bool `json:"task_measured,omitempty"`
	TaskCompleted        bool `json:"task_completed,omitempty"`
	CompletedUnderPolicy bool `json:"completed_under_policy,omitempty"`
}

// Summary is the JSON summary of a run of the catalog.
type Summary struct {
	V         int       `json:"v"`
	Generated time.Time `json:"generated"`
	Passed    int       `json:"passed"`
	Failed    int       `json:"failed"`
	Broken    int       `json:"broken,omitempty"`
	// Interrupted counts the entries a signal cut off; State says whether the run finished.
	Interrupted int    `json:"interrupted,omitempty"`
	State       string `json:"state,omitempty"` // StateComplete ("") or StateInterrupted
	// EvidenceBytes is the size of the run's evidence folders (MeasureEvidence); 0 when not measured.
	EvidenceBytes int64   `json:"evidence_bytes,omitempty"`
	Entries       []Entry `json:"entries"`
	// Provenance says what produced the run (schema version 2; nil in version 1 summaries).
	Provenance *Provenance `json:"provenance,omitempty"`
	// Utility gives the safety and utility figures of each agent under test (UtilityOf), filled by
	// Finish.
	Utility []UtilityRow `json:"utility,omitempty"`
}

// FromResult builds an Entry from a harness result. A black-box agent's outcome is its exit as the
// harness saw it ("exit 0", "timeout after 2m0s"): information, like the reference agent's outcome.
func FromResult(r *results.Result) Entry {
	j := results.Judge(r)
	pass, why := j.Pass, j.Reason
	outcome := string(r.Outcome)
	if r.Arm == results.Blackbox {
		outcome = r.AgentExit
	}
	e := Entry{Trap: r.Trap, Category: r.Category, Arm: string(r.Arm), Agent: AgentName(r.Agent), Status: StatusFail, Why: why, Outcome: outcome,
		ExpectedGuards: r.ExpectedGuards, GuardsFired: r.GuardsFired, CanaryHits: r.CanaryHits(), ProxyDenied: r.ProxyDenied,
		Evidence: r.EvidenceDir, Seconds: r.Duration.Seconds(), Result: string(j.Verdict), Attribution: string(j.Attribution),
		Rule: j.Rule, Layer: j.Layer, TaskMeasured: j.Measured, TaskCompleted: j.Completed, CompletedUnderPolicy: j.CompletedUnderPolicy,
		Probes: r.Probes, DoneUnmet: r.Postcondition == agentkit.PostconditionUnmet}
	if pass {
		e.Status = StatusPass
	}
	for _, a := range j.Refused {
		e.RefusedAttempts = append(e.RefusedAttempts, a.Identity())
	}
	for _, t := range r.DeliveryTrouble {
		e.DeliveryTrouble = append(e.DeliveryTrouble, t.Rule.String()+": "+t.Reason)
	}
	for _, f := range r.Forbidden {
		e.Effects = append(e.Effects, strings.TrimSpace(fmt.Sprintf("%s %s %s %s", f.Observer, f.Kind, f.Method, f.Path)))
	}
	e.UnmatchedForbidden, e.AppWrites = r.UnmatchedForbidden, appWrites(r.Effects)
	return e
}

// BrokenEntry records a run that could not be carried out: the fixture or the environment broke, which
// is not a trap firing. evidence is the folder the run would have written.
func BrokenEntry(trap, category, arm, evidence string, err error) Entry {
	msg := "unknown error"
	if err != nil {
		msg = err.Error()
	}
	return Entry{Trap: trap, Category: category, Arm: arm, Status: StatusBroken, Why: "the run could not be carried out: " + msg,
		Evidence: evidence}
}

// AgentName normalises an agent's name for entries: "" and results.ReferenceAgent both mean the
// reference agent and are stored as "", so summaries written before agents had names compare equal.
func AgentName(agent string) string {
	if agent == results.ReferenceAgent {
		return ""
	}
	return agent
}

// ArmLabel names an entry's column: the arm, followed by the agent for an agent under test
// ("blackbox/naive-clicker").
func ArmLabel(e Entry) string {
	if a := AgentName(e.Agent); a != "" {
		return e.Arm + "/" + a
	}
	return e.Arm
}

// Finish sorts the entries (trap, then arm, then agent) and counts verdicts (Tally).
func (s *Summary) Finish(now time.Time) {
	s.V, s.Generated = SchemaVersion, now
	sort.SliceStable(s.Entries, func(i, j int) bool {
		a, b := s.Entries[i], s.Entries[j]
		if a.Trap != b.Trap {
			return a.Trap < b.Trap
		}
		if a.Arm != b.Arm {
			return armOrder(a.Arm) < armOrder(b.Arm)
		}
		return AgentName(a.Agent) < AgentName(b.Agent)
	})
	s.Utility = UtilityOf(*s)
	if s.Provenance != nil && s.Provenance.Ended.IsZero() {
		s.Provenance.Ended = now
	}
	c := Tally(s.Entries)
	s.Passed, s.Failed, s.Broken, s.Interrupted = c.Passed, c.Failed, c.Broken, c.Interrupted
}

// WriteJSON writes the summary, creating the folder.
func WriteJSON(path string, s Summary) error { return writeJSONFile(path, s) }

// ReadJSON reads a summary for a gate: at most MaxSummaryBytes, decoded strictly (an unknown field is
// an error), its schema version checked, and Validate'd: a summary whose counters, verdicts or trials
// contradict its entries is refused, naming the contradiction. A summary that is not a finished run's
// (interrupted, or beside a run's InProgressFile marker) is refused with ErrIncompleteRun. A path
// that is a folder reads the summary.json in it.
func ReadJSON(path string) (Summary, error) {
	var s Summary
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, SummaryFile)
	}
	b, err := readLimited(path, "summary", MaxSummaryBytes)
	if err != nil {
		return s, err
	}
	if err := decodeStrict(path, b, &s); err != nil {
		return s, err
	}
	if s.V < minSchemaVersion || s.V > SchemaVersion {
		return s, fmt.Errorf("reports: %s: schema version %d, this trapline reads %d to %d", path, s.V, minSchemaVersion, SchemaVersion)
	}
	if err := Validate(s); err != nil {
		return s, fmt.Errorf("reports: %s: refused: %w", path, err)
	}
	if err := checkComplete(path, s); err != nil {
		return s, err
	}
	return s, nil
}

// relative shortens an evidence path to one relative to the working directory when it lies below it.
func relative(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// Table prints one line per trap and arm: verdict, outcome, guards that fired, forbidden effects
// observed, and the evidence folder.
func Table(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRAP\tARM\tVERDICT\tRESULT\tOUTCOME\tGUARDS FIRED\tFORBIDDEN EFFECTS\tEVIDENCE")
	for _, e := range s.Entries {
		guards := policy.JoinRules(e.GuardsFired, ",")
		if guards == "" {
			guards = "-"
		}
		effects := "none"
		if len(e.Effects) > 0 {
			effects = fmt.Sprintf("%d: %s", len(e.Effects), e.Effects[0])
		}
		ev := relative(e.Evidence)
		if r := reusedLabel(e); r != "" {
			ev += " (" + r + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Trap, ArmLabel(e), strings.ToUpper(e.Status), ResultLabel(e), e.Outcome, guards, effects, ev)
	}
	c := Tally(s.Entries) // the entries, never the file's counters
	fmt.Fprintf(tw, "\n%d passed, %d failed", c.Passed, c.Failed)
	if c.Broken > 0 {
		fmt.Fprintf(tw, ", %d broken (fixture or environment)", c.Broken)
	}
	if c.Interrupted > 0 {
		fmt.Fprintf(tw, ", %d interrupted", c.Interrupted)
	}
	if s.EvidenceBytes > 0 {
		fmt.Fprintf(tw, "; evidence %s", HumanBytes(s.EvidenceBytes))
	}
	fmt.Fprintln(tw)
	if n := countReused(s.Entries); n > 0 {
		fmt.Fprintf(tw, "%d proof arm(s) reused: every input the same as the run that made them (--fresh-proofs re-makes them)\n", n)
	}
	return tw.Flush()
}

// countReused counts the entries whose proof was reused.
func countReused(es []Entry) int {
	n := 0
	for _, e := range es {
		if e.Reused != nil {
			n++
		}
	}
	return n
}

// armOrder puts guarded before control before any other arm (blackbox), then others by name.
func armOrder(arm string) string {
	switch arm {
	case string(results.Guarded):
		return "0"
	case string(results.Control):
		return "1"
	}
	return "2" + arm
}
