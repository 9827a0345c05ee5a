package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/internal/jsonl"
)

func TestRecorderRedactsAndRoundTrips(t *testing.T) {
	dir := t.TempDir()
	const secret = "hunter2-topsecret"
	rec, err := Open(dir, NewRedactor(secret, ""))
	if err != nil {
		t.Fatal(err)
	}
	rec.Action(ActionRecord{Proposal: action.Action{Kind: action.Fill, Ref: "a:e1", Value: secret}, Page: "http://x/?p=" + secret})
	rec.Violation(Violation{Rule: "deny_word", Reason: "typed " + secret, Taken: "denied"})
	rec.Console(ConsoleRecord{Type: "log", Text: "pw=" + secret})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ActionsFile, ViolationsFile, ConsoleFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Fatalf("%s leaks the secret: %s", name, b)
		}
		if !strings.Contains(string(b), Redacted) {
			t.Fatalf("%s has no redaction marker: %s", name, b)
		}
	}
	vs, err := ReadViolations(filepath.Join(dir, ViolationsFile))
	if err != nil || len(vs) != 1 || vs[0].V != Version || vs[0].Seq != 1 || vs[0].Rule != "deny_word" {
		t.Fatalf("ReadViolations = %+v, %v", vs, err)
	}
	as, err := ReadActions(filepath.Join(dir, ActionsFile))
	if err != nil || len(as) != 1 || as[0].Proposal.Value != Redacted {
		t.Fatalf("ReadActions = %+v, %v", as, err)
	}
}

func TestRedactorLongestFirst(t *testing.T) {
	r := NewRedactor("abc", "abcdef")
	if got := r.String("xabcdefx abc"); got != "x"+Redacted+"x "+Redacted {
		t.Fatalf("got %q", got)
	}
	var nilR *Redactor
	if nilR.String("abc") != "abc" {
		t.Fatal("nil redactor must pass through")
	}
}

func TestReadJSONLNamesLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.jsonl")
	if err := os.WriteFile(p, []byte("{\"v\":1}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadViolations(p)
	if err == nil || !strings.Contains(err.Error(), "v.jsonl:2") {
		t.Fatalf("err = %v, want line 2 named", err)
	}
}

// TestReadersCheckTheVersion: a record of another version, or with none, is refused with an error
// naming the file, the line and both versions.
func TestReadersCheckTheVersion(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{`{"v":1,"seq":1,"rule":"deny_word"}` + "\n" + `{"v":2,"seq":2,"rule":"deny_word"}` + "\n", ":2: unsupported record version: the record is v=2, this trapline reads v=1"},
		{`{"seq":1,"rule":"deny_word"}` + "\n", `:1: unsupported record version: the record has no "v"`},
	} {
		path := filepath.Join(dir, ViolationsFile)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadViolations(path)
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("ReadViolations = %v, want %q", err, path+c.want)
		}
	}
}

// TestReadLinesNamesWhereAndLine: ReadLines' errors start with where, then the line; a line longer
// than maxLine is named, never a silent stop.
func TestReadLinesNamesWhereAndLine(t *testing.T) {
	type rec struct{ N int }
	got, err := ReadLines[rec](strings.NewReader(`{"v":3,"N":1}`+"\n"+`{"v":3,"N":2}`+"\n"), "log x.jsonl", 3, 1<<10)
	if err != nil || len(got) != 2 || got[1].N != 2 {
		t.Fatalf("ReadLines = %+v, %v; want two records", got, err)
	}
	_, err = ReadLines[rec](strings.NewReader(`{"v":3}`+"\n"+`{"v":3,"N":"two"}`+"\n"), "log x.jsonl", 3, 1<<10)
	if err == nil || !strings.HasPrefix(err.Error(), "log x.jsonl:2: ") {
		t.Fatalf("bad line: err = %v, want it to start with log x.jsonl:2:", err)
	}
	// Issue 49.10: one over-long line no longer loses the file: it is named, skipped, and the
	// records around it are read.
	long := `{"v":3,"pad":"` + strings.Repeat("a", 70<<10) + `"}`
	got, err = ReadLines[rec](strings.NewReader(`{"v":3,"N":1}`+"\n"+long+"\r\n"+`{"v":3,"N":3}`+"\r\n"+long), "log x.jsonl", 3, 1<<10)
	if !errors.Is(err, ErrLineTooLong) || !strings.HasPrefix(err.Error(), "log x.jsonl:2: ") || !strings.Contains(err.Error(), "2 such lines") {
		t.Fatalf("long line: err = %v, want ErrLineTooLong naming log x.jsonl:2 and 2 lines", err)
	}
	if len(got) != 2 || got[0].N != 1 || got[1].N != 3 {
		t.Fatalf("long line: records = %+v, want the other two", got)
	}
}

// A record is a JSON line: a secret with characters JSON escapes ("<", "&", a quote) is written
// escaped, so replacing the plain secret in the line missed it.
func TestRecorderRedactsASecretJSONEscapes(t *testing.T) {
	dir := t.TempDir()
	const secret = `p<a"ss>&w0rd`
	rec, err := Open(dir, NewRedactor(secret))
	if err != nil {
		t.Fatal(err)
	}
	rec.Action(ActionRecord{Proposal: action.Action{Kind: action.Fill, Ref: "a:e1", Value: secret}})
	rec.Console(ConsoleRecord{Type: "log", Text: "pw=" + secret})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if leaks, err := Scan(dir, secret); err != nil || len(leaks) != 0 {
		t.Fatalf("the records hold the secret: %v (%v)", leaks, err)
	}
	as, err := ReadActions(filepath.Join(dir, ActionsFile))
	if err != nil || len(as) != 1 || as[0].Proposal.Value != Redacted {
		t.Fatalf("ReadActions = %+v, %v", as, err)
	}
}

// The run folder and its records hold page content: its owner's only, even when the folder existed
// already (the world creates it first, for its proxy log).
func TestRecorderFilesAreOwnersOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trap", "control")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := Open(dir, NewRedactor("s3cret-value"))
	if err != nil {
		t.Fatal(err)
	}
	rec.Action(ActionRecord{Proposal: action.Action{Kind: action.Click, Ref: "a:e1"}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != DirMode {
		t.Errorf("the run folder has mode %v, want %v", info.Mode().Perm(), DirMode)
	}
	for _, name := range []string{ActionsFile, ViolationsFile, ConsoleFile} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != FileMode {
			t.Errorf("%s has mode %v, want %v", name, info.Mode().Perm(), FileMode)
		}
	}
}

// TestRecorderBoundsALongRecord is issue 49.10 for the run's own logs: a page's console message of
// megabytes (with the run's secret at its end) is written cut to jsonl.MaxLine with a marker,
// redacted before the cut, and reads back.
func TestRecorderBoundsALongRecord(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cret-value"
	rec, err := Open(dir, NewRedactor(secret))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("\x01", 20<<10) + secret + strings.Repeat("\x01", 2<<20) + secret
	rec.Console(ConsoleRecord{Type: "log", Text: text})
	rec.Action(ActionRecord{Proposal: action.Action{Kind: action.Fill, Ref: "a:e1", Value: text}})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ConsoleFile, ActionsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > jsonl.MaxLine+1 || !strings.Contains(string(b), "…[cut ") || strings.Contains(string(b), secret[:8]) {
			t.Errorf("%s: %d bytes, want one cut line of at most %d without the secret", name, len(b), jsonl.MaxLine)
		}
	}
	as, err := ReadActions(filepath.Join(dir, ActionsFile))
	if err != nil || len(as) != 1 || as[0].Proposal.Kind != action.Fill {
		t.Fatalf("ReadActions = %d records, %v", len(as), err)
	}
}

// Two parties take shots for the same next violation (the loop and a browser event): each gets its own
// name, and a name follows the violations recorded so far.
func TestShotNamesAreUnique(t *testing.T) {
	rec, err := Open(t.TempDir(), NewRedactor())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	a, b := rec.ShotName(), rec.ShotName()
	if a != "violation-001.png" || b != "violation-002.png" {
		t.Fatalf("names %q, %q; want violation-001.png, violation-002.png", a, b)
	}
	for range 4 {
		rec.Violation(Violation{Rule: "deny_word", Taken: TakenDenied})
	}
	if c := rec.ShotName(); c != "violation-005.png" {
		t.Fatalf("after 4 violations the next shot is %q, want violation-005.png", c)
	}
}
