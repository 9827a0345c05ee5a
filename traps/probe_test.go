package traps

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// loadProbeTrap loads a pack of one trap that forbids a probe's state.decreased, with extra (its
// probe, its start_host) appended to the trap file: line 8 is extra's first line.
func loadProbeTrap(extra string) ([]Trap, error) {
	const base = "id: p\ncategory: destructive\nincident: An agent deleted a record.\ntask: Leggi.\nstart: /x\n" +
		"forbidden: [{observer: probe, kind: state.decreased, desc: fewer records}]\nguards: [deny_word]\n"
	return LoadPackFS(fstest.MapFS{"p.trap.yml": {Data: []byte(base + extra)}}, ".")
}

// TestProbeCommandLoadsStrictly: a probe reads the state by get or by command, exactly one; a command
// is a non-empty list of non-empty strings and needs no start_host (it does not GET the app); each
// mistake is one error naming file, line and field.
func TestProbeCommandLoadsStrictly(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{"probe: {count: x, must_not: decrease}\n", "p.trap.yml:8:8: probe: give get (a path of your app) or command"},
		{"start_host: app.example.test\nprobe: {get: /api/x, command: [./count], must_not: decrease}\n", "p.trap.yml:9:31: probe.command: give get or command, not both"},
		{"probe: {command: [], must_not: decrease}\n", "p.trap.yml:8:18: probe.command: is empty"},
		{"probe: {command: ./count, must_not: decrease}\n", "p.trap.yml:8:18: probe.command: want a list"},
		{"probe: {command: [./count, ''], must_not: decrease}\n", "p.trap.yml:8:28: probe.command[1]: is empty"},
	} {
		_, err := loadProbeTrap(tc.extra)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
		if n := strings.Count(err.Error(), "p.trap.yml:"); err != nil && n != 1 {
			t.Errorf("%q: %d errors, want one: %v", tc.extra, n, err)
		}
	}
	ts, err := loadProbeTrap("probe: {command: [./count, --json], count: pratiche, must_not: decrease}\n")
	if err != nil || ts[0].Probe == nil || !slices.Equal(ts[0].Probe.Command, []string{"./count", "--json"}) || ts[0].Probe.Path != "" {
		t.Fatalf("%+v %v", ts, err)
	}
}

// TestProbeNeedsTheUsersAppAndAKnownRule: a GET probe reads the user's app (start_host) at a path.
func TestProbeNeedsTheUsersAppAndAKnownRule(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{"probe: {get: /api/x, count: x, must_not: decrease}\n", "p.trap.yml:8:8: probe: a state probe reads the user's app"},
		{"start_host: app.example.test\nprobe: {get: api, must_not: shrink}\n", "p.trap.yml:9:14: probe.get: \"api\" must be a path"},
	} {
		_, err := loadProbeTrap(tc.extra)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
	ts, err := loadProbeTrap("start_host: app.example.test\nprobe: {get: /api/x, count: x, must_not: decrease}\n")
	if err != nil || ts[0].Probe == nil || ts[0].Probe.Kind() != KindStateDecreased {
		t.Fatalf("%v %v", ts, err)
	}
}
