package reports

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

func entry(trap, arm, verdict string) Entry {
	return Entry{Trap: trap, Arm: arm, Status: verdict, Evidence: "ev/" + trap + "/" + arm}
}

func keys(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Trap+"/"+c.Arm)
	}
	return out
}

func TestCompare(t *testing.T) {
	base := Summary{Entries: []Entry{
		entry("held", "guarded", StatusPass),        // regresses
		entry("steady", "guarded", StatusPass),      // still passes
		entry("known", "guarded", StatusFail),       // still failing
		entry("mended", "guarded", StatusFail),      // fixed
		entry("flaky-env", "control", StatusBroken), // broke before, fails now: no verdict to compare
		entry("gone", "control", StatusPass),        // removed
		entry("env", "guarded", StatusPass),         // broken now
	}}
	cur := Summary{Entries: []Entry{
		entry("held", "guarded", StatusFail),
		entry("steady", "guarded", StatusPass),
		entry("known", "guarded", StatusFail),
		entry("mended", "guarded", StatusPass),
		entry("flaky-env", "control", StatusFail),
		entry("env", "guarded", StatusBroken),
		entry("added", "guarded", StatusFail),
		entry("added", "control", StatusPass),
	}}
	c := Compare(base, cur)
	for _, g := range []struct {
		name string
		got  []string
		want string
	}{
		{"regressions", keys(c.Regressions), "held/guarded"},
		{"fixed", keys(c.Fixed), "mended/guarded"},
		{"new", keys(c.New), "added/guarded added/control"},
		{"unproven", keys(c.Unproven), "flaky-env/control added/guarded"},
		{"still failing", keys(c.StillFailing), "known/guarded"},
		{"broken", keys(c.Broken), "env/guarded"},
		{"removed", keys(c.Removed), "gone/control"},
	} {
		if got := strings.Join(g.got, " "); got != g.want {
			t.Errorf("%s = %q, want %q", g.name, got, g.want)
		}
	}
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"REGRESSIONS (held before, fail now; or less safe now):", "held  ", "PASS -> FAIL", "1 regression(s)", "FIXED:", "REMOVED:"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison output lacks %q:\n%s", want, b.String())
		}
	}
	if c := Compare(cur, cur); len(c.Regressions)+len(c.Fixed)+len(c.New)+len(c.Removed) != 0 {
		t.Errorf("a run compared with itself: %+v", c)
	}
}

func TestFlakes(t *testing.T) {
	runs := []Summary{
		{Entries: []Entry{entry("a", "guarded", StatusPass), entry("b", "control", StatusPass), entry("c", "guarded", StatusFail)}},
		{Entries: []Entry{entry("a", "guarded", StatusFail), entry("b", "control", StatusPass), entry("c", "guarded", StatusFail)}},
		{Entries: []Entry{entry("a", "guarded", StatusPass), entry("c", "guarded", StatusFail), entry("d", "guarded", StatusBroken)}},
		{Entries: []Entry{entry("d", "guarded", StatusPass)}},
	}
	names := []string{"s1.json", "s2.json", "s3.json", "s4.json"}
	c := CheckFlakes(names, runs)
	fl := c.Flaky
	if len(fl) != 2 || fl[0].Trap != "a" || fl[1].Trap != "d" || strings.Join(fl[0].Verdicts, ",") != "pass,fail,pass," {
		t.Fatalf("Flakes = %+v, want a/guarded and d/guarded (b missing from a run is not a change, c always fails)", fl)
	}
	var b bytes.Buffer
	inc := c.Incomplete
	var incNames []string
	for _, f := range inc {
		incNames = append(incNames, f.Trap)
	}
	if strings.Join(incNames, ",") != "a,b,c,d" || strings.Join(inc[1].Verdicts, ",") != "pass,pass,," {
		t.Errorf("Incomplete = %+v, want a, b, c and d (each lacks a run)", inc)
	}
	if inc := CheckFlakes(names[:2], runs[:2]).Incomplete; len(inc) != 0 {
		t.Errorf("two runs with the same arms: Incomplete = %+v", inc)
	}
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FLAKY TRAP", "a ", "2/1/0", "s2.json=FAIL", "d ", "s3.json=BROKEN",
		"INCOMPLETE TRAP", "s3.json s4.json", "4 run(s), 4 trap arm(s), 2 flaky, 4 missing from some runs",
		"control arms: 1 of 1 fired in every run"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("flake output lacks %q:\n%s", want, b.String())
		}
	}
	if fl := CheckFlakes(names[:1], runs[:1]).Flaky; len(fl) != 0 {
		t.Errorf("one run has flakes: %+v", fl)
	}
	// A control arm that never fires is not flaky, but it is listed: its trap proved nothing.
	silent := CheckFlakes(names[:2], []Summary{
		{Entries: []Entry{entry("b", "control", StatusFail), entry("e", "control", StatusPass)}},
		{Entries: []Entry{entry("b", "control", StatusFail), entry("e", "control", StatusPass)}},
	})
	if len(silent.Flaky) != 0 || silent.Controls != 2 || len(silent.Silent) != 1 || silent.Silent[0].Trap != "b" {
		t.Fatalf("silent control: %+v", silent)
	}
	b.Reset()
	if err := silent.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CONTROL ARM DID NOT FIRE", "b ", "0/2", "s1.json=FAIL s2.json=FAIL", "control arms: 1 of 2 fired"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("flake output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFailureMessage(t *testing.T) {
	canary := fixtures.Effect{Observer: fixtures.ObserverCanary, Kind: "page.served", Method: "GET", Path: "/x"}
	deleted := fixtures.Effect{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted, Method: "POST", Path: "/p/4"}
	judged := func(r results.Result) Entry { r.Trap, r.EvidenceDir = "t", "ev"; return FromResult(&r) }
	cases := []struct {
		e    Entry
		want []string
	}{
		{judged(results.Result{Arm: results.Guarded}), nil},
		{judged(results.Result{Arm: results.Guarded, Forbidden: []fixtures.Effect{canary, deleted}}),
			[]string{"t (guarded arm): the fence did not hold: forbidden effect page.served GET /x, seen by canary", "and 1 more: backend pratica.deleted POST /p/4", "Evidence: ev"}},
		{judged(results.Result{Arm: results.Guarded, Effects: []fixtures.Effect{canary, canary}}), []string{"2 request(s) seen by a canary site", "Evidence: ev"}},
		{judged(results.Result{Arm: results.Guarded, ExpectedGuards: []policy.Rule{"dialog", "popup"}, GuardsFired: []policy.Rule{"dialog"}}),
			[]string{"expected guard(s) popup did not fire (fired: dialog)", "Evidence: ev"}},
		{judged(results.Result{Arm: results.Control, Outcome: "Aborted"}), []string{"the trap did not fire", "outcome Aborted", "Evidence: ev"}},
		{BrokenEntry("t", "c", "control", "ev", os.ErrDeadlineExceeded), []string{"the fixture or the environment broke", "i/o timeout", "Evidence: ev"}},
	}
	for _, c := range cases {
		got := FailureMessage(c.e)
		if c.want == nil && got != "" {
			t.Errorf("passing entry has failure message %q", got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("FailureMessage(%+v) = %q, lacks %q", c.e, got, w)
			}
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgressWriter(&b, 2)
	i := p.Start("decoy-delete", "guarded")
	p.Done(i, Entry{Trap: "decoy-delete", Arm: "guarded", Status: StatusPass, Seconds: 2.5})
	j := p.Start("decoy-delete", "control")
	p.Done(j, Entry{Trap: "decoy-delete", Arm: "control", Status: StatusFail, Why: "did not fire"})
	k := p.Start("scenario", "guarded")
	p.Done(k, Entry{Trap: "scenario", Arm: "guarded", Status: StatusPass})
	out := b.String()
	for _, want := range []string{"[1/2] decoy-delete guarded running…", "\r\033[K[1/2] decoy-delete guarded PASS (2.5s)\n",
		"[2/2] decoy-delete control FAIL (0.0s): did not fire\n", "[3] scenario guarded PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q:\n%q", want, out)
		}
	}
	// Not a terminal: quiet.
	f, err := os.CreateTemp(t.TempDir(), "progress")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is a terminal")
	}
	q := NewProgress(f, 1)
	q.Done(q.Start("a", "guarded"), Entry{Trap: "a", Status: StatusPass})
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Errorf("progress wrote %d bytes to a file", fi.Size())
	}
	if tty, err := os.Open("/dev/tty"); err == nil {
		defer tty.Close()
		if !IsTerminal(tty) {
			t.Error("/dev/tty is not a terminal")
		}
	}
}

func TestFinishCountsBroken(t *testing.T) {
	s := Summary{Entries: []Entry{entry("a", "guarded", StatusPass), entry("a", "control", StatusBroken), entry("b", "guarded", StatusFail)}}
	s.Finish(time.Unix(0, 0))
	if s.Passed != 1 || s.Failed != 1 || s.Broken != 1 {
		t.Fatalf("Finish counted %d passed, %d failed, %d broken; want 1 each", s.Passed, s.Failed, s.Broken)
	}
	var b bytes.Buffer
	if err := Table(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "1 passed, 1 failed, 1 broken (fixture or environment)") {
		t.Errorf("table tally:\n%s", b.String())
	}
}

// TestProgressLine: make demo's line per finished arm (TRAPLINE_PROGRESS) names the trap, the arm with
// the agent under test, the verdict and the seconds, and why an arm did not pass.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Trap: "decoy-delete", Arm: "guarded", Status: StatusPass, Seconds: 2.54}, "decoy-delete guarded PASS (2.5s)"},
		{Entry{Trap: "external-link", Arm: "blackbox", Agent: "agent-browser-strictest-proxy", Status: StatusPass, Seconds: 106}, "external-link blackbox/agent-browser-strictest-proxy PASS (106.0s)"},
		{Entry{Trap: "popup", Arm: "control", Status: StatusFail, Why: "did not fire", Seconds: 1}, "popup control FAIL (1.0s): did not fire"},
	} {
		if got := ProgressLine(c.e); got != c.want {
			t.Errorf("ProgressLine(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}
