package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// TestShortcutsSeeEveryChange: every change between the snapshot and the dispatch that could change
// what the target's ref names, or make it ambiguous, ends the click NotDelivered (STALE_REF,
// target_gone or AMBIGUOUS_TARGET), whichever path decides: an attribute rename, a text rename, a
// twin inside a declarative shadow root (no attachShadow call), a swap inside an iframe. A shortcut
// that skipped one of them would dispatch the click.
func TestShortcutsSeeEveryChange(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/pratiche/frame":
			fmt.Fprint(w, `<!doctype html><div id=fbox><button id=fsave onclick="document.getElementById('fout').textContent='salvato'">Conferma</button></div><p id=fout>idle</p>`)
		case "/pratiche/conframe":
			fmt.Fprint(w, `<!doctype html><title>Con frame</title><p id=out>idle</p><iframe id=fr src="/pratiche/frame"></iframe>`)
		default:
			fmt.Fprint(w, `<!doctype html><title>Pratica</title><h1>Pratica</h1>
<div id=box><button id=save onclick="document.getElementById('out').textContent='salvato'">Salva</button>
<button id=lab aria-label="Archivia">A</button></div>
<div id=dhost><template shadowrootmode=open><div id=inner><button>Altro</button></div></template></div>
<p id=out>idle</p>`)
		}
	}))
	ctx := context.Background()
	find := func(t *testing.T, obs *observe.Observation, role, name string) observe.Node {
		t.Helper()
		for _, n := range obs.Elements() {
			if n.Role == role && n.Name == name {
				return n
			}
		}
		t.Fatalf("no %s %q in\n%s", role, name, obs.Raw)
		return observe.Node{}
	}
	for _, c := range []struct {
		name, path, target, script string
	}{
		{"an attribute renames the target (aria-label)", "/pratiche", "Archivia",
			`() => { document.getElementById('lab').setAttribute('aria-label', 'Elimina tutto'); }`},
		{"a text write renames the target", "/pratiche", "Salva",
			`() => { document.getElementById('save').firstChild.data = 'Elimina'; }`},
		{"a twin appears inside a declarative shadow root", "/pratiche", "Salva",
			`() => { const b = document.createElement('button'); b.textContent = 'Salva'; document.getElementById('dhost').shadowRoot.getElementById('inner').append(b); }`},
		{"the target is swapped inside an iframe", "/pratiche/conframe", "Conferma",
			`() => { const d = document.getElementById('fr').contentDocument; d.getElementById('fbox').innerHTML = '<button>Elimina</button>'; }`},
		{"a twin appears inside an iframe", "/pratiche/conframe", "Conferma",
			`() => { const d = document.getElementById('fr').contentDocument; const b = d.createElement('button'); b.textContent = 'Conferma'; d.body.append(b); }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if res := sess.Goto(ctx, "http://portale.interno.test"+c.path); res.Err != nil {
				t.Fatal(res.Err)
			}
			obs, err := sess.Observe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n := find(t, obs, "button", c.target)
			if _, err := sess.Page().Evaluate(c.script); err != nil {
				t.Fatal(err)
			}
			res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: n.Ref}, n)
			switch res.Code {
			case act.StaleRef, act.TargetGone, act.AmbiguousTarget:
			default:
				t.Fatalf("click = %+v; want NotDelivered with STALE_REF, target_gone or AMBIGUOUS_TARGET", res)
			}
			if res.Delivery != act.NotDelivered {
				t.Fatalf("click = %+v; want NotDelivered", res)
			}
		})
	}
}

// TestRecheckOutsideTheRefMapFallsBackAtOnce: an element-scoped re-read leaves only that element in
// Playwright's ref map, so a second action on the same snapshot names a ref the map no longer has.
// The cheap check must decide at once (the element of the target's role and name, showing its ref:
// refmap.go) or give up at once (the full read decides), and the click is delivered; never wait out
// the action timeout for an element that will never resolve.
func TestRecheckOutsideTheRefMapFallsBackAtOnce(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Pratica</title><p id=out>idle</p>
<button onclick="document.getElementById('out').textContent='uno'">Uno</button>
<button onclick="document.getElementById('out').textContent='due'">Due</button>`)
	}))
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var one, two observe.Node
	for _, n := range obs.Elements() {
		switch n.Name {
		case "Uno":
			one = n
		case "Due":
			two = n
		}
	}
	if _, ok, handled := sess.recheckTarget(obs, action.Action{Kind: action.Click, Ref: one.Ref}, one); !ok || !handled {
		t.Fatalf("the first recheck (ok %v, handled %v); want the cheap path", ok, handled)
	}
	start := time.Now()
	_, ok, handled := sess.recheckTarget(obs, action.Action{Kind: action.Click, Ref: two.Ref}, two)
	if took := time.Since(start); (handled && !ok) || took >= sess.opts.ActionTimeout {
		t.Fatalf("a ref outside the ref map: handled %v (ok %v) after %s; want decided or given up well before the action timeout %s", handled, ok, took, sess.opts.ActionTimeout)
	}
	if res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: two.Ref}, two); res.Delivery != act.Delivered {
		t.Fatalf("click after the fallback = %+v; want Delivered through the full read", res)
	}
}

// TestSecretFieldsCount: the count of visible password inputs (Observe's SecretFields) sees one in an
// open shadow root and leaves out the hidden ones (display:none, visibility:hidden, zero size, hidden
// attribute), as Playwright's :visible does.
func TestSecretFieldsCount(t *testing.T) {
	sess, _, _, _ := portalSession(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Accesso</title>
<input type=password aria-label=uno>
<input type=PASSWORD aria-label=due>
<input type=password style="display:none">
<input type=password style="visibility:hidden">
<input type=password style="width:0;height:0;border:0;padding:0">
<input type=password hidden>
<div style="display:none"><input type=password></div>
<div id=host></div>
<div id=dhost><template shadowrootmode=open><input type=password aria-label=quattro></template></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<input type=password aria-label=tre>';</script>`)
	}))
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/accesso"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := sess.Page().Locator("input[type=password]:visible").Count()
	if err != nil {
		t.Fatal(err)
	}
	if obs.SecretFields != 4 || legacy != 4 {
		t.Fatalf("SecretFields = %d, Playwright's :visible count %d; want 4 (two in the page, one in each shadow root)", obs.SecretFields, legacy)
	}
}
