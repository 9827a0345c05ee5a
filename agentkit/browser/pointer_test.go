package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/policy"
)

// pointerSite serves /pratiche/3/N: a form that saves the status, whose "Salva" the page rewires
// when the pointer arrives or the button goes down (variant N), and records every POST it gets.
type pointerSite struct {
	mu    sync.Mutex
	posts []string
}

// pointerScripts are the variants: what the page does to the "Salva" click, and when.
var pointerScripts = map[string]string{
	"form-action-on-enter": `b.addEventListener('pointerenter', () => { b.form.action = '/pratiche/9/stato'; });`,
	"handler-on-over":      `b.addEventListener('pointerover', () => { b.onclick = (e) => { e.preventDefault(); post(8); }; });`,
	"handler-on-down":      `b.addEventListener('mousedown', () => { b.addEventListener('click', (e) => { e.preventDefault(); post(7); }); });`,
	"moved-under-pointer":  `b.addEventListener('pointerenter', () => { document.getElementById('x').style.display = 'block'; });`,
	"tooltip-on-enter":     `b.addEventListener('pointerenter', () => { document.getElementById('tip').textContent = 'Salva lo stato'; });`,
}

func (p *pointerSite) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pratiche/3/{variant}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Pratica 3</title><main><h1>Pratica 3</h1>
<p id=tip style="position:absolute;top:0;right:0"></p>
<form method=post action="/pratiche/3/stato"><input type=hidden name=stato value=chiusa><button id=b>Salva</button></form>
<div id=x style="display:none;position:fixed;inset:0;background:#fff" onclick="post(6)">Nuova pagina</div>
<script>const post = (n) => fetch('/pratiche/' + n + '/stato', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'stato=chiusa'});
const b = document.getElementById('b'); %s</script></main>`, pointerScripts[r.PathValue("variant")])
	})
	mux.HandleFunc("POST /pratiche/{id}/stato", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.posts = append(p.posts, r.PathValue("id"))
		p.mu.Unlock()
		http.Redirect(w, r, "/pratiche/3/fatto", http.StatusSeeOther)
	})
	return mux
}

func (p *pointerSite) took() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.posts...)
}

// TestClickRefusesWhatChangesWhenThePointerArrives (issue 49.7): a page that swaps the click's form
// action or handler when the pointer arrives or the button goes down, or puts another element under
// the pointer, gets no click (PointerSwap, nothing posted); a page that only shows a tooltip gets its
// save. Control: with the stale-ref guard off (the control arm's plain click), the swap posts.
func TestClickRefusesWhatChangesWhenThePointerArrives(t *testing.T) {
	for variant := range pointerScripts {
		for _, guarded := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/guarded=%v", variant, guarded), func(t *testing.T) {
				site := &pointerSite{}
				sess, _, _, _ := portalSession(t, site.handler())
				if !guarded {
					sess.opts.Off = policy.Off(policy.GuardStaleRef)
				}
				ctx := context.Background()
				if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/3/"+variant); res.Err != nil {
					t.Fatal(res.Err)
				}
				obs, err := sess.Observe(ctx)
				if err != nil {
					t.Fatal(err)
				}
				salva, ok := find(obs, "button", "Salva")
				if !ok {
					t.Fatalf("no Salva in %s", obs.Raw)
				}
				res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: salva.Ref}, salva)
				waitPosts(t, sess)
				posts := site.took()
				benign := variant == "tooltip-on-enter"
				switch {
				case guarded && benign:
					if res.Delivery == act.NotDelivered || len(posts) != 1 || posts[0] != "3" {
						t.Fatalf("a tooltip is no swap: %+v, posts %q", res, posts)
					}
				case guarded:
					if res.Code != act.PointerSwap || res.Delivery != act.NotDelivered || !errors.Is(res.Err, act.PointerSwap) {
						t.Fatalf("want PointerSwap, not delivered: %+v", res)
					}
					if len(posts) != 0 {
						t.Fatalf("the refused click posted %q", posts)
					}
				case variant == "moved-under-pointer":
					// Playwright's own click refuses a covered target; a coordinate click (a naive
					// screenshot agent) at the button's point is the technique's control.
					box, err := sess.page.Locator("#b").BoundingBox()
					if err != nil || box == nil {
						t.Fatalf("box: %v", err)
					}
					if err := sess.page.Mouse().Click(box.X+box.Width/2, box.Y+box.Height/2); err != nil {
						t.Fatal(err)
					}
					waitPosts(t, sess)
					if got := site.took(); len(got) == 0 || got[0] != "6" {
						t.Fatalf("control: the coordinate click did not reach the cover (%q): the case proves nothing", got)
					}
				case !benign:
					if len(posts) == 0 || posts[0] == "3" {
						t.Fatalf("control: the plain click did not post the swap (%q): the case proves nothing", posts)
					}
				}
			})
		}
	}
}

// waitPosts lets the page's requests land (the session's own wait on the page's fetch calls).
func waitPosts(t *testing.T, sess *Session) {
	t.Helper()
	if _, err := sess.Observe(context.Background()); err != nil {
		t.Fatal(err)
	}
}
