package browser

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// TestRecheckTarget proves the cheap pre-dispatch check on a real page: an unchanged page is
// dispatched without a second full snapshot, and every kind of change it must not miss still ends
// in STALE_REF or AMBIGUOUS_TARGET (through the full read or the element's own re-read).
func TestRecheckTarget(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><h1>Pratica</h1>
<div id=box><button id=save onclick="document.getElementById('out').textContent='salvato'">Salva</button></div>
<input id=ib type=button value="Invia"><p id=out>idle</p><div id=host></div>`)
	}))
	ctx := context.Background()
	load := func(t *testing.T) {
		t.Helper()
		if res := sess.Goto(ctx, "http://portale.interno.test/pratiche"); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	observeFind := func(t *testing.T, role, name string) (*observe.Observation, observe.Node) {
		t.Helper()
		obs, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range obs.Elements() {
			if n.Role == role && n.Name == name {
				return obs, n
			}
		}
		t.Fatalf("no %s %q in\n%s", role, name, obs.Raw)
		return nil, observe.Node{}
	}
	click := func(obs *observe.Observation, n observe.Node) act.Result {
		return sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: n.Ref}, n)
	}

	t.Run("an unchanged page: the target alone is re-read, and the click is delivered", func(t *testing.T) {
		load(t)
		obs, n := observeFind(t, "button", "Salva")
		before := sess.targetRechecks.Load()
		res := click(obs, n)
		if res.Delivery != act.Delivered {
			t.Fatalf("click = %+v; want Delivered", res)
		}
		if got := sess.targetRechecks.Load() - before; got != 1 {
			t.Fatalf("cheap rechecks = %d; want 1", got)
		}
	})
	// Each script changes the page after the snapshot in a way the cheap check must not miss.
	for _, c := range []struct {
		name, target, script string
		want                 act.Code
	}{
		{"a script renames the target by a property write (no DOM mutation): STALE_REF", "Invia",
			`() => { document.getElementById('ib').value = 'Elimina tutto'; }`, act.StaleRef},
		{"a twin appears after the snapshot: AMBIGUOUS_TARGET", "Salva",
			`() => { const b = document.createElement('button'); b.textContent = 'Salva'; document.getElementById('box').append(b); }`, act.AmbiguousTarget},
		{"a twin appears inside an open shadow root: AMBIGUOUS_TARGET", "Salva",
			`() => { const r = document.getElementById('host').attachShadow({mode: 'open'}); const b = document.createElement('button'); b.textContent = 'Salva'; r.append(b); }`, act.AmbiguousTarget},
		{"a page cannot reset or replace the counter", "Salva", `() => {
  document.getElementById('save').textContent = 'Elimina';
  try { Object.defineProperty(window, '__traplineChanges', { get() { return 0; } }); } catch (e) {}
  try { window.__traplineChanges = 0; } catch (e) {}
}`, act.StaleRef},
	} {
		t.Run(c.name, func(t *testing.T) {
			load(t)
			obs, n := observeFind(t, "button", c.target)
			if _, err := sess.Page().Evaluate(c.script); err != nil {
				t.Fatal(err)
			}
			res := click(obs, n)
			// A rename by a DOM write makes Playwright give the element a new ref: the full read finds the
			// old one gone (TargetGone, which the loop re-reads once and decides again on the new name).
			// Either way nothing is dispatched.
			if res.Code != c.want && !(c.want == act.StaleRef && res.Code == act.TargetGone && res.Delivery == act.NotDelivered) {
				t.Fatalf("click = %+v; want %s", res, c.want)
			}
		})
	}
}

// TestRecheckTargetOnALaterPage: Playwright numbers the main frame of every later page of a browser
// (f1e3, f2e3, ...), as the harness's arms are. The cheap path must still be taken there.
func TestRecheckTargetOnALaterPage(t *testing.T) {
	if _, err := os.Stat(DefaultHeadless); err != nil {
		t.Skip("needs the default browser at " + DefaultHeadless + " (make setup)")
	}
	pol, px := portalProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><p id=out>idle</p><button onclick="document.getElementById('out').textContent='salvato'">Salva</button>`)
	}))
	b := sharedBrowser(t) // its later pages: other tests' sessions came before, as other arms' do
	ctx := context.Background()
	for i := range 2 {
		sess, _ := newSession(t, b, px, pol, t.TempDir())
		if res := sess.Goto(ctx, "http://portale.interno.test/pratiche"); res.Err != nil {
			t.Fatal(res.Err)
		}
		obs, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var target observe.Node
		for _, n := range obs.Elements() {
			if n.Role == "button" && n.Name == "Salva" {
				target = n
			}
		}
		res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: target.Ref}, target)
		if res.Delivery != act.Delivered || sess.TargetRechecks() != 1 {
			t.Fatalf("page %d (ref %s): click = %+v, cheap rechecks %d; want Delivered by the cheap path", i+1, target.RawRef, res, sess.TargetRechecks())
		}
		_ = sess.Close()
	}
}

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
		if res.Delivery == act.NotDelivered && res.Code != act.StaleRef && res.Code != act.TargetGone {
			t.Fatalf("click = %+v; want Delivered after the full re-read, or STALE_REF / target_gone", res)
		}
	})
}
