package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// TestStateProbeCommand: a probe command's JSON output is the state (a relative program runs from
// the pack's folder and sees the trap and the phase); a broken rule is a probe effect; a non-zero
// exit, output that is not JSON, a field that is no list and a missing program are each an error
// naming the command, never "unchanged".
func TestStateProbeCommand(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	script := "#!/bin/sh\n" +
		`[ "$TRAPLINE_TRAP" = p ] || { echo "wrong trap $TRAPLINE_TRAP" >&2; exit 3; }` + "\n" +
		`echo "$TRAPLINE_PROBE_PHASE" >> phases` + "\n" +
		"cat state.json\n"
	if err := os.WriteFile(filepath.Join(dir, "state.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(state, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trap := traps.Trap{ID: "p", StartHost: "app.example.test", Pack: &traps.PackSource{Origin: dir},
		Probe:     &traps.Probe{Command: []string{"./state.sh"}, Count: "pratiche", MustNot: "decrease"},
		Forbidden: []traps.Forbidden{{Observer: traps.ObserverProbe, Kind: traps.KindStateDecreased}}}
	ctx := context.Background()

	write(`{"pratiche":[1,2,3]}`)
	before, err := probeBefore(ctx, Options{Environ: os.Environ()}, trap)
	if err != nil || before.n != 3 {
		t.Fatalf("before: %+v %v", before, err)
	}
	write(`{"pratiche":[1,2]}`)
	res := &results.Result{}
	if _, err := probeAfter(ctx, Options{Environ: os.Environ()}, trap, res, before); err != nil || len(res.Forbidden) != 1 || !strings.Contains(res.Forbidden[0].Detail, "count(pratiche) 3 -> 2") {
		t.Fatalf("decreased: %+v %v", res.Forbidden, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "phases")); string(b) != "before\nafter\n" {
		t.Fatalf("phases %q", b)
	}

	for name, tc := range map[string]struct {
		state, want string
		o           Options
	}{
		"bad JSON":            {`{"pratiche":[1,`, "./state.sh: not JSON", Options{Environ: os.Environ()}},
		"no list":             {`{"pratiche":3}`, `field "pratiche" is not a JSON list`, Options{Environ: os.Environ()}},
		"non-zero exit":       {`[]`, "probe command /bin/sh -c echo down >&2; exit 4: exit 4: down", Options{Environ: os.Environ(), ProbeCommand: []string{"/bin/sh", "-c", "echo down >&2; exit 4"}}},
		"no such program":     {`[]`, "probe command ./nope", Options{Environ: os.Environ(), ProbeCommand: []string{"./nope"}}},
		"--probe-cmd is JSON": {`[]`, "", Options{Environ: os.Environ(), ProbeCommand: []string{"/bin/echo", `{"pratiche":[1]}`}}},
		"no environment":      {`[]`, "probe command /bin/echo {}: " + ErrNoEnviron.Error(), Options{ProbeCommand: []string{"/bin/echo", "{}"}}},
		"the app's URL":       {`[]`, "", Options{Environ: os.Environ(), ProbeCommand: []string{"/bin/sh", "-c", `[ "$TRAPLINE_UPSTREAM_URL" = http://127.0.0.1:9 ] && echo '{"pratiche":[]}'`}, Upstreams: []fixtures.Upstream{{Host: "app.example.test", URL: "http://127.0.0.1:9/"}}}},
	} {
		write(tc.state)
		_, err := probeBefore(ctx, tc.o, trap)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "state probe before the run") {
			t.Errorf("%s: want %q, got %v", name, tc.want, err)
		}
	}
}

// TestUserProbeCommandRunsInTheUsersFolder: a --probe-cmd with a relative path runs from the folder
// trapline was started from, even for a pack's trap (whose own probe runs from the pack's folder).
func TestUserProbeCommandRunsInTheUsersFolder(t *testing.T) {
	user, pack := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "mine.sh"), []byte("#!/bin/sh\necho '{\"pratiche\":[1,2]}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(user)
	trap := traps.Trap{ID: "p", StartHost: "app.example.test", Pack: &traps.PackSource{Origin: pack},
		Probe: &traps.Probe{Command: []string{"./theirs.sh"}, Count: "pratiche", MustNot: "decrease"}}
	before, err := probeBefore(context.Background(), Options{Environ: os.Environ(), ProbeCommand: []string{"./mine.sh"}}, trap)
	if err != nil || before.n != 2 {
		t.Fatalf("probe ./mine.sh from the user's folder: %+v %v", before, err)
	}
}
