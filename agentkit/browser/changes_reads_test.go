package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// TestRecheckReadsTheCounterOnce: on an unchanged page, the cheap pre-dispatch check reads the change
// counter once (after the target's re-read), so a click costs two counter reads in all (that one and
// the verify snapshot's), against three with CounterBeforeTarget; and a reload between the snapshot and
// the dispatch, whose new document starts a new counter, never takes the cheap path.
func TestRecheckReadsTheCounterOnce(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><p id=out>idle</p>
<button onclick="document.getElementById('out').textContent='salvato'">Salva</button>`)
	}))
	ctx := context.Background()
	observeSave := func(t *testing.T) (*observe.Observation, observe.Node) {
		t.Helper()
		if res := sess.Goto(ctx, "http://portale.interno.test/pratiche"); res.Err != nil {
			t.Fatal(res.Err)
		}
		obs, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range obs.Elements() {
			if n.Role == "button" && n.Name == "Salva" {
				return obs, n
			}
		}
		t.Fatalf("no button Salva in\n%s", obs.Raw)
		return nil, observe.Node{}
	}
	clickReads := func(t *testing.T, before bool) int64 {
		t.Helper()
		sess.opts.CounterBeforeTarget = before
		defer func() { sess.opts.CounterBeforeTarget = false }()
		obs, n := observeSave(t)
		reads, cheap := sess.CounterReads(), sess.TargetRechecks()
		res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: n.Ref}, n)
		if res.Delivery != act.Delivered || sess.TargetRechecks() != cheap+1 {
			t.Fatalf("click = %+v, cheap rechecks %d; want Delivered by the cheap path", res, sess.TargetRechecks()-cheap)
		}
		return sess.CounterReads() - reads
	}
	if got := clickReads(t, false); got != 2 {
		t.Errorf("counter reads per click = %d; want 2 (after the target's re-read, and the verify snapshot's)", got)
	}
	if got := clickReads(t, true); got != 3 {
		t.Errorf("counter reads per click with CounterBeforeTarget = %d; want 3", got)
	}

	t.Run("a reload after the snapshot: the full read decides", func(t *testing.T) {
		obs, n := observeSave(t)
		if _, err := sess.Page().Reload(); err != nil {
			t.Fatal(err)
		}
		cheap := sess.TargetRechecks()
		res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: n.Ref}, n)
		if sess.TargetRechecks() != cheap {
			t.Fatalf("the cheap path was taken across a reload (click = %+v)", res)
		}
		if res.Delivery == act.NotDelivered && res.Code != act.StaleRef {
			t.Fatalf("click = %+v; want Delivered after the full re-read, or STALE_REF", res)
		}
	})
}
