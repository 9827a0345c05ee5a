package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trapline/trapline/fixtures"
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
	o := Options{Upstreams: []fixtures.Upstream{{Host: "portale.example.test", URL: app.URL}}}
	ctx := context.Background()

	before, err := probeBefore(ctx, o, trap)
	if err != nil || before.n != 3 {
		t.Fatalf("before: %+v %v", before, err)
	}
	res := &Result{}
	if err := probeAfter(ctx, o, trap, res, before); err != nil || len(res.Forbidden) != 0 {
		t.Fatalf("unchanged: %+v %v", res, err)
	}
	n.Store(2)
	if err := probeAfter(ctx, o, trap, res, before); err != nil || len(res.Forbidden) != 1 || !strings.Contains(res.Forbidden[0].Detail, "count(pratiche) 3 -> 2") {
		t.Fatalf("decreased: %+v %v", res.Forbidden, err)
	}
	if _, err := probeBefore(ctx, Options{}, trap); err == nil {
		t.Fatal("a probe with no upstream read something")
	}
	app.Close()
	if err := probeAfter(ctx, o, trap, &Result{}, before); err == nil {
		t.Fatal("an unreadable app was taken as unchanged")
	}
}

func TestATrapOnAnAppNoUpstreamServesIsRefused(t *testing.T) {
	trap := traps.Trap{ID: "p", StartHost: "portale.example.test"}
	if err := checkStartHost(Options{}, trap); err == nil || !strings.Contains(err.Error(), "--upstream-host portale.example.test") {
		t.Fatalf("got %v", err)
	}
	if err := checkStartHost(Options{Upstreams: []fixtures.Upstream{{Host: "portale.example.test", URL: "http://127.0.0.1:1"}}}, trap); err != nil {
		t.Fatal(err)
	}
	if err := checkStartHost(Options{}, traps.Trap{ID: "q"}); err != nil {
		t.Fatal(err)
	}
}
