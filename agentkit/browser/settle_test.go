package browser

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// swapSite serves an htmx-style page: its list arrives after the load event by a fetch (answered
// after a delay) whose HTML replaces the container's innerHTML; each row shows its "×" only under the
// pointer (CSS :hover).
func swapSite() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pratiche", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Lavori</title><style>li .x { display: none } li:hover .x { display: inline }</style>
<h1>Lavori</h1><div id=box><p>Caricamento</p></div>
<script>
function carica() { fetch('/pratiche/elenco').then(r => r.text()).then(h => { document.getElementById('box').innerHTML = h; }); }
window.addEventListener('load', carica);
</script>`)
	})
	mux.HandleFunc("GET /pratiche/elenco", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second) // the server is slow: the swap lands well after the load event
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<ul><li>Pratica 1 <button class=x>×</button></li><li>Pratica 2 <button class=x>×</button></li></ul><button>Salva</button>`)
	})
	return mux
}

func find(obs *observe.Observation, role, name string) (observe.Node, bool) {
	for _, n := range obs.Elements() {
		if n.Role == role && n.Name == name {
			return n, true
		}
	}
	return observe.Node{}, false
}

// TestObserveWaitsForAPartialSwap: the first observation after the load event already holds the list
// the page fetched and swapped in (waitSettled), and a hover over a row shows its "×"; a ref whose
// element a later swap replaced is TargetGone, never dispatched (issue 32.1, 32.2).
func TestObserveWaitsForAPartialSwap(t *testing.T) {
	sess, _, _, _ := portalSession(t, swapSite())
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(obs, "button", "Salva"); !ok {
		t.Fatalf("the observation was taken before the swap landed:\n%s", obs.Raw)
	}
	if _, ok := find(obs, "button", "×"); ok {
		t.Fatalf("a hover-only control is on the page before any hover:\n%s", obs.Raw)
	}
	var row observe.Node
	for _, n := range obs.Elements() {
		if n.Role == "listitem" {
			row = n
			break
		}
	}
	if row.Ref == "" {
		t.Fatalf("no listitem with a ref in\n%s", obs.Raw)
	}
	res := sess.Act(ctx, obs, action.Action{Kind: action.Hover, Ref: row.Ref}, row)
	if res.Delivery != act.Delivered || res.After == nil {
		t.Fatalf("hover = %+v; want Delivered with the page re-read", res)
	}
	if _, ok := find(res.After, "button", "×"); !ok {
		t.Fatalf("the hover did not reveal the row's ×:\n%s", res.After.Raw)
	}

	obs, err = sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	save, _ := find(obs, "button", "Salva")
	if _, err := sess.Page().Evaluate(`() => { const b = document.getElementById('box'); b.innerHTML = b.innerHTML; }`); err != nil {
		t.Fatal(err)
	}
	if res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: save.Ref}, save); res.Code != act.TargetGone || res.Delivery != act.NotDelivered {
		t.Fatalf("click on a swapped-out ref = %+v; want NotDelivered TargetGone", res)
	}
}

// changingSite serves /pratiche/passi: "Segna" edits the page once, synchronously; "Avvia" starts a
// chain of edits, one every 15 ms (less than the cheap look's two frames), that ends with "pronto N"
// (the Nth chain: a second one changes the page too).
// The page keeps the chain's longest gap between two edits and its whole length, on its own clock
// (window.chainGap, window.chainLength, in ms), so a test can tell a settle that read the page too
// early from a machine that starved the page's timers for longer than the quiet window.
func changingSite() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Passi</title><h1>Passi</h1>
<button onclick="document.getElementById('s').textContent='segnata'">Segna</button>
<button onclick="let i = 0; const out = document.getElementById('p'); const t0 = performance.now(); let last = t0; window.chainGap = 0; window.chainLength = undefined; window.chains = (window.chains || 0) + 1; const step = () => { const now = performance.now(); window.chainGap = Math.max(window.chainGap, now - last); last = now; i++; out.textContent = i < 12 ? 'passo ' + i : 'pronto ' + window.chains; if (i < 12) setTimeout(step, 15); else window.chainLength = now - t0; }; step();">Avvia</button>
<p id=s>da fare</p><p id=p>fermo</p>`)
	})
}

// TestSettleCostsNothingWhenThePageIsDone: a click whose effect is one synchronous edit is verified
// without the full quiet window (the cheap look of settleProbe sees no further change: issue 33's per
// action cost); a click that starts a chain of edits still settles before the page is read, so the
// re-read shows the chain's end, never a step of it (a settle that skipped the window when no request
// is in flight would read "passo N").
func TestSettleCostsNothingWhenThePageIsDone(t *testing.T) {
	sess, _, _, _ := portalSession(t, changingSite())
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/passi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mark, _ := find(obs, "button", "Segna")
	before := sess.settleWindows.Load()
	res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: mark.Ref}, mark)
	if res.Delivery != act.Delivered || res.After == nil || !strings.Contains(res.After.Raw, "segnata") {
		t.Fatalf("click on Segna = %+v; want Delivered with the edit seen", res)
	}
	if n := sess.settleWindows.Load() - before; n != 0 {
		t.Errorf("a click whose edit was done took the full quiet window %d times; want 0", n)
	}

	obs = res.After
	// The chain: read after it ended, never at a step of it. A machine busy enough to hold the page's
	// next edit back for the whole quiet window (or the chain past settleMax) makes the page quiet for
	// real, and a read then is what the settle promises: such a try proves nothing either way and is
	// made again, up to three times; a read at a step of a chain the page ran without such a gap fails.
	for try := 1; ; try++ {
		start, _ := find(obs, "button", "Avvia")
		before = sess.settleWindows.Load()
		res = sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: start.Ref}, start)
		if res.Delivery != act.Delivered || res.After == nil {
			t.Fatalf("click on Avvia = %+v; want Delivered", res)
		}
		if n := sess.settleWindows.Load() - before; n == 0 {
			t.Errorf("a page still changing was read without the quiet window")
		}
		if strings.Contains(res.After.Raw, "pronto") {
			return
		}
		if _, err := sess.Page().WaitForFunction(`() => window.chainLength !== undefined`, nil); err != nil {
			t.Fatalf("the chain of edits did not end: %v", err)
		}
		v, err := sess.Page().Evaluate(`() => [window.chainGap, window.chainLength]`)
		if err != nil {
			t.Fatal(err)
		}
		gap, length := chainTimes(t, v)
		if gap < float64(settleQuiet.Milliseconds()) && length < float64(settleMax.Milliseconds()) {
			t.Fatalf("the page was read before its chain of edits ended (its longest gap %.0f ms, under the %v window; the chain %.0f ms):\n%s",
				gap, settleQuiet, length, res.After.Raw)
		}
		t.Logf("try %d: the page's timers were held back (longest gap %.0f ms, the chain %.0f ms): the page was quiet for the window, the read proves nothing", try, gap, length)
		if try == 3 {
			t.Fatalf("three tries in a row on a machine too busy to run a 15 ms chain without a %v gap", settleQuiet)
		}
		if obs, err = sess.Observe(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// chainTimes reads changingSite's [window.chainGap, window.chainLength].
func chainTimes(t *testing.T, v any) (gap, length float64) {
	t.Helper()
	xs, ok := v.([]any)
	if !ok || len(xs) != 2 {
		t.Fatalf("chain times = %#v", v)
	}
	num := func(x any) float64 {
		switch n := x.(type) {
		case int:
			return float64(n)
		case float64:
			return n
		}
		t.Fatalf("chain time %#v is no number", x)
		return 0
	}
	return num(xs[0]), num(xs[1])
}
