package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lyingSummaries are summaries a hostile or broken producer could hand a gate, each with the words its
// refusal must contain.
var lyingSummaries = []struct {
	name, json, want string
}{
	{"counters contradict the entries", `{"v":2,"passed":4,"failed":0,"entries":[
		{"trap":"a","arm":"guarded","verdict":"fail"},{"trap":"a","arm":"control","verdict":"fail"},
		{"trap":"b","arm":"guarded","verdict":"fail"},{"trap":"b","arm":"control","verdict":"fail"}]}`,
		"counters say passed 4, failed 0, broken 0, but its 4 entries are passed 0, failed 4, broken 0"},
	{"all counters zero", `{"v":2,"passed":0,"failed":0,"entries":[{"trap":"a","arm":"guarded","verdict":"fail"}]}`,
		"but its 1 entries are passed 0, failed 1"},
	{"unknown verdict", `{"v":2,"passed":0,"failed":1,"entries":[{"trap":"a","arm":"guarded","verdict":"banana"}]}`,
		`unknown verdict "banana"`},
	{"unknown field", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"guarded","verdict":"pass","gate":"off"}]}`,
		`:1: json: unknown field "gate"`},
	{"unknown top-level field", "{\"v\":2,\n\"passed\":1,\"failed\":0,\"ok\":true,\"entries\":[{\"trap\":\"a\",\"arm\":\"guarded\",\"verdict\":\"pass\"}]}",
		`unknown field "ok"`},
	{"duplicate arm", `{"v":2,"passed":1,"failed":1,"entries":[{"trap":"a","arm":"guarded","verdict":"pass"},{"trap":"a","arm":"guarded","verdict":"fail"}]}`,
		"entry 2 (a guarded): the same trap, arm and agent as entry 1"},
	{"unknown arm", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"gurded","verdict":"pass"}]}`,
		`unknown arm "gurded"`},
	{"pass that was caught", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"fenced","agent":"x","verdict":"pass","result":"caught"}]}`,
		`verdict pass contradicts its result "caught"`},
	{"pass^k with a failed trial", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"fenced","agent":"x","verdict":"pass","repeat":3,"trials_passed":2}]}`,
		"only 2 of 3 trials passed"},
	{"trials that contradict the merged entry", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"fenced","agent":"x","verdict":"pass","repeat":2,"trials_passed":2,
		"trials":[{"n":1,"verdict":"pass","why":"","evidence":"","seconds":1},{"n":1,"verdict":"fail","why":"","evidence":"","seconds":1}]}]}`,
		"trial number 1 duplicated"},
	{"lying utility", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"fenced","agent":"x","verdict":"pass","result":"held"}],
		"utility":[{"agent":"x","arm":"fenced","runs":1,"held":1,"refrained":1,"stopped":0,"caught":0,"not_exercised":0,"measured":1,"completed":1,"completed_under_policy":1}]}`,
		"utility rows"},
	{"unknown state", `{"v":2,"passed":1,"failed":0,"state":"done","entries":[{"trap":"a","arm":"guarded","verdict":"pass"}]}`,
		`unknown run state "done"`},
	{"trailing data", `{"v":2,"passed":1,"failed":0,"entries":[{"trap":"a","arm":"guarded","verdict":"pass"}]} {"v":2}`,
		"data after the JSON value"},
}

// TestReadJSONRefusesLyingSummaries: a gate never decides on what a summary says about itself. Before
// the fix, every one of these was read without an error (the counters were taken as they were).
func TestReadJSONRefusesLyingSummaries(t *testing.T) {
	dir := t.TempDir()
	for i, c := range lyingSummaries {
		p := mustWrite(t, filepath.Join(dir, string(rune('a'+i))+".json"), []byte(c.json))
		_, err := ReadJSON(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
	honest := mustWrite(t, filepath.Join(dir, "honest.json"), []byte(`{"v":2,"passed":1,"failed":1,"entries":[{"trap":"a","arm":"guarded","verdict":"pass","result":"held"},{"trap":"a","arm":"control","verdict":"fail","result":"silent"}]}`))
	if _, err := ReadJSON(honest); err != nil {
		t.Errorf("an honest summary: %v", err)
	}
}

// TestReadJSONSizeLimit: a summary over MaxSummaryBytes is refused naming the file, its size and the
// limit, before it is decoded.
func TestReadJSONSizeLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSummaryBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadJSON(p)
	if err == nil || !strings.Contains(err.Error(), "big.json") || !strings.Contains(err.Error(), "33554433 bytes") || !strings.Contains(err.Error(), "limit of 33554432 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadJSONRefusesIncompleteRuns: an interrupted summary, and one beside a run's in-progress marker,
// are not a finished run's.
func TestReadJSONRefusesIncompleteRuns(t *testing.T) {
	dir := t.TempDir()
	s := Summary{State: StateInterrupted, Entries: []Entry{{Trap: "a", Arm: "guarded", Status: StatusPass, Result: "held"}}}
	s.Finish(s.Generated)
	p := filepath.Join(dir, "int", SummaryFile)
	if err := WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSON(p); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("interrupted: %v", err)
	}
	s.State = StateComplete
	p = filepath.Join(dir, "running", SummaryFile)
	if err := WriteJSON(p, s); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSON(filepath.Dir(p)); err != nil {
		t.Fatalf("a finished run's folder: %v", err)
	}
	mustWrite(t, filepath.Join(dir, "running", InProgressFile), []byte("pid 1\n"))
	if _, err := ReadJSON(p); err == nil || !strings.Contains(err.Error(), InProgressFile) {
		t.Errorf("in progress: %v", err)
	}
}

// TestReadJUnitRecounts: a JUnit file whose counters deny its failed cases is refused, and a case whose
// status says it failed is a failure even without a failure element.
func TestReadJUnitRecounts(t *testing.T) {
	dir := t.TempDir()
	lying := mustWrite(t, filepath.Join(dir, "lying.xml"), []byte(`<testsuites tests="1" failures="0" errors="0">
<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="[It] x" status="failed"><failure message="boom"></failure></testcase></testsuite></testsuites>`))
	if _, err := JUnitFailuresOutsideArms(lying); err == nil || !strings.Contains(err.Error(), `suite "s" says 1 test(s), 0 failure(s) and 0 error(s), but its cases are 1, 1 of them failed`) {
		t.Errorf("lying counters: %v", err)
	}
	bare := mustWrite(t, filepath.Join(dir, "bare.xml"), []byte(`<testsuites tests="1" failures="1" errors="0">
<testsuite name="s" tests="1" failures="1" errors="0"><testcase name="[It] x" status="timedout"></testcase></testsuite></testsuites>`))
	if f, err := JUnitFailures(bare); err != nil || len(f) != 1 || !strings.Contains(f[0].Message, "timedout") {
		t.Errorf("a timed-out case without a failure element: %+v, %v", f, err)
	}
	odd := mustWrite(t, filepath.Join(dir, "odd.xml"), []byte(`<testsuites tests="1"><testsuite name="s" tests="1"><testcase name="[It] x" status="fine"></testcase></testsuite></testsuites>`))
	if _, err := JUnitFailures(odd); err == nil || !strings.Contains(err.Error(), `unknown status "fine"`) {
		t.Errorf("unknown status: %v", err)
	}
}
