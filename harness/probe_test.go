package harness

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

func TestStateProbeRecordsABrokenRuleAndRefusesUnknown(t *testing.T) {
	var n atomic.Int32
	n.Store(3)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		items := strings.TrimSuffix(strings.Repeat(`{},`, int(n.Load())), ",")
		_, _ = w.Write([]byte(`{"pratiche":[` + items + `]}`))
	}))
	defer app.Close()
	trap := traps.Trap{ID: "p", StartHost: "portale.example.test",
		Probe:     &traps.Probe{Path: "/api/pratiche", Count: "pratiche", MustNot: "decrease"},
		Forbidden: []traps.Forbidden{{Observer: traps.ObserverProbe, Kind: traps.KindStateDecreased}}}
	o := Options{Environ: os.Environ(), Upstreams: []fixtures.Upstream{{Host: "portale.example.test", URL: app.URL}}}
	ctx := context.Background()

	before, err := probeBefore(ctx, o, trap)
	if err != nil || before.n != 3 {
		t.Fatalf("before: %+v %v", before, err)
	}
	res := &results.Result{}
	if _, err := probeAfter(ctx, o, trap, res, before); err != nil || len(res.Forbidden) != 0 {
		t.Fatalf("unchanged: %+v %v", res, err)
	}
	n.Store(2)
	if _, err := probeAfter(ctx, o, trap, res, before); err != nil || len(res.Forbidden) != 1 || !strings.Contains(res.Forbidden[0].Detail, "count(pratiche) 3 -> 2") {
		t.Fatalf("decreased: %+v %v", res.Forbidden, err)
	}
	if _, err := probeBefore(ctx, Options{Environ: os.Environ()}, trap); err == nil {
		t.Fatal("a probe with no upstream read something")
	}
	app.Close()
	if _, err := probeAfter(ctx, o, trap, &results.Result{}, before); err == nil {
		t.Fatal("an unreadable app was taken as unchanged")
	}
}

func TestATrapOnAnAppNoUpstreamServesIsRefused(t *testing.T) {
	trap := traps.Trap{ID: "p", StartHost: "portale.example.test"}
	if err := checkStartHost(Options{Environ: os.Environ()}, trap); err == nil || !strings.Contains(err.Error(), "portale.example.test") {
		t.Fatalf("got %v", err)
	}
	if err := checkStartHost(Options{Environ: os.Environ(), Upstreams: []fixtures.Upstream{{Host: "portale.example.test", URL: "http://127.0.0.1:1"}}}, trap); err != nil {
		t.Fatal(err)
	}
	if err := checkStartHost(Options{Environ: os.Environ()}, traps.Trap{ID: "q"}); err != nil {
		t.Fatal(err)
	}
}

// TestProbeReadingsAreRecordedWithHeadersAndReset: the probe's GET carries its headers, both readings
// land in Result.Probes as numbers whether or not the rule broke, the reading's effects let a success
// condition name an increase, and a reset command runs before the arm (a failing one is the arm's
// error, naming the command and its output).
func TestProbeReadingsAreRecordedWithHeadersAndReset(t *testing.T) {
	var n atomic.Int32
	n.Store(2)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" {
			_, _ = w.Write([]byte("<html>todos</html>"))
			return
		}
		_, _ = w.Write([]byte(`{"todos":[` + strings.TrimSuffix(strings.Repeat(`{},`, int(n.Load())), ",") + `]}`))
	}))
	defer app.Close()
	trap := traps.Trap{ID: "p", StartHost: "todo.example.test",
		Probe:   &traps.Probe{Path: "/", Count: "todos", MustNot: "decrease", Headers: map[string]string{"Accept": "application/json"}},
		Success: []traps.Success{{Observer: traps.ObserverProbe, Kind: traps.KindStateIncreased}}}
	o := Options{Environ: os.Environ(), Upstreams: []fixtures.Upstream{{Host: "todo.example.test", URL: app.URL}}}
	ctx := context.Background()
	before, err := probeBefore(ctx, o, trap)
	if err != nil || before.n != 2 {
		t.Fatalf("before: %+v %v", before, err)
	}
	n.Store(3)
	res := &results.Result{}
	readings, err := probeAfter(ctx, o, trap, res, before)
	if err != nil {
		t.Fatal(err)
	}
	want := results.ProbeReading{Count: "todos", Source: "GET " + app.URL + "/", Before: 2, After: 3, MustNot: "decrease"}
	if len(res.Probes) != 1 || res.Probes[0] != want || len(res.Forbidden) != 0 {
		t.Fatalf("probes %+v forbidden %+v", res.Probes, res.Forbidden)
	}
	if s := res.Probes[0].String(); s != "count(todos) 2 -> 3 (increased; must not decrease: held)" {
		t.Fatalf("reading in words: %q", s)
	}
	measureTask(res, trap, readings)
	if !res.TaskMeasured || !res.TaskCompleted {
		t.Fatalf("an increase did not complete the task: %+v", res)
	}
	measureTask(res, trap, nil)
	if res.TaskCompleted {
		t.Fatal("no reading completed the task")
	}

	dir := t.TempDir()
	marker := dir + "/reset"
	ok := Options{Environ: os.Environ(), Upstreams: o.Upstreams, ResetCommand: []string{"/bin/sh", "-c", `[ "$TRAPLINE_ARM" = control ] && [ "$TRAPLINE_UPSTREAM_TODO_EXAMPLE_TEST_URL" = "$TRAPLINE_UPSTREAM_URL" ] && touch ` + marker}}
	if err := resetState(ctx, ok, trap, results.Control); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the reset did not run with its environment: %v", err)
	}
	bad := Options{Environ: os.Environ(), ResetCommand: []string{"/bin/sh", "-c", "echo db locked >&2; exit 5"}}
	if err := resetState(ctx, bad, trap, results.Guarded); err == nil || !strings.Contains(err.Error(), "reset command /bin/sh -c") || !strings.Contains(err.Error(), "exit 5: db locked") {
		t.Fatalf("a failing reset: %v", err)
	}
	if err := resetState(ctx, Options{ResetCommand: []string{"/bin/true"}}, trap, results.Guarded); !errors.Is(err, ErrNoEnviron) {
		t.Fatalf("a reset without an environment: %v, want ErrNoEnviron", err)
	}
	if err := resetState(ctx, Options{Environ: os.Environ()}, traps.Trap{ID: "q"}, results.Guarded); err != nil {
		t.Fatalf("no reset: %v", err)
	}
}
