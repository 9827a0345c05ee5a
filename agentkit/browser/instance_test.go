package browser

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
)

// rowsSite serves a TodoMVC-style list whose rows each have the same icon-only "×" (a form that
// closes the row's pratica: POST /pratiche/{id}/stato, a write the reference policy allows) and the
// same named "Apri". closed lists the ids the page was asked to close, in order.
type rowsSite struct {
	mu     sync.Mutex
	closed []string
}

func (s *rowsSite) Closed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.closed)
}

func (s *rowsSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		s.mu.Lock()
		s.closed = append(s.closed, r.PathValue("id"))
		s.mu.Unlock()
		http.Redirect(w, r, "/pratiche/righe", http.StatusSeeOther)
		return
	}
	s.mu.Lock()
	done := slices.Clone(s.closed)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!doctype html><title>Righe</title><h1>Righe</h1><ul id=list>`)
	for i, title := range []string{"Comprare il latte", "Pagare la bolletta", "Chiamare il tecnico"} {
		id := strconv.Itoa(i + 1)
		if slices.Contains(done, id) {
			continue
		}
		fmt.Fprintf(w, `<li><span>%s</span> <form method=post action="/pratiche/%s/stato" style="display:inline"><input type=hidden name=stato value=chiusa><button>×</button></form> <button type=button>Apri</button></li>`, title, id)
	}
	fmt.Fprint(w, `</ul>`)
}

func (s *rowsSite) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /pratiche/righe", s)
	mux.Handle("POST /pratiche/{id}/stato", s)
	return mux
}

// nth returns the i-th element of obs with role and name, in document order.
func nth(t *testing.T, obs *observe.Observation, role, name string, i int) observe.Node {
	t.Helper()
	var found []observe.Node
	for _, n := range obs.Elements() {
		if n.Role == role && n.Name == name {
			found = append(found, n)
		}
	}
	if i >= len(found) {
		t.Fatalf("%d elements %s %q, want at least %d:\n%s", len(found), role, name, i+1, obs.Raw)
	}
	return found[i]
}

// TestRepeatedControlInstances: three rows, each with the same icon-only "×". Each instance is a
// target of its own, the one its snapshot-scoped ref names (issue 32.3): the second row's "×" closes
// the second row's pratica, also after the rows were re-ordered between the snapshot and the click
// (a re-find by rank would close another row's). When the page re-renders in place, so that the ref's
// element now stands for another record (a list re-rendered by position keeps its buttons), the
// click is STALE_REF and nothing is sent. A repeated control with a name ("Apri" in every row) stays
// AMBIGUOUS_TARGET: a planner that chose it by its name may have meant another row.
func TestRepeatedControlInstances(t *testing.T) {
	for _, c := range []struct {
		name   string
		change string // a page script run between the snapshot and the click, "" for none
		want   []string
		code   act.Code
	}{
		{name: "each instance is its own target", want: []string{"2"}},
		{name: "rows re-ordered: the ref's own row", change: `() => { const l = document.getElementById('list'); l.prepend(l.lastElementChild); }`, want: []string{"2"}},
		{name: "rows re-rendered in place: another record under the ref", code: act.StaleRef,
			change: `() => {
				const rows = [...document.querySelectorAll('#list li')];
				const data = rows.map(li => [li.querySelector('span').textContent, li.querySelector('form').getAttribute('action')]);
				rows.forEach((li, i) => { const [t, a] = data[(i + data.length - 1) % data.length]; li.querySelector('span').textContent = t; li.querySelector('form').setAttribute('action', a); });
			}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			site, sess, obs := openRows(t)
			ctx := context.Background()
			x := nth(t, obs, "button", "×", 1)
			if c.change != "" {
				if _, err := sess.Page().Evaluate(c.change); err != nil {
					t.Fatal(err)
				}
			}
			res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: x.Ref}, x)
			if c.code != "" {
				if res.Delivery != act.NotDelivered || res.Code != c.code {
					t.Fatalf("click = %+v; want NotDelivered %s", res, c.code)
				}
			} else if res.Delivery == act.NotDelivered {
				t.Fatalf("click = %+v (%v); want it dispatched", res, res.Err)
			}
			if got := site.Closed(); !slices.Equal(got, c.want) {
				t.Fatalf("closed %q, want %q (click %+v)", got, c.want, res)
			}
		})
	}

	t.Run("a named repeated control stays ambiguous", func(t *testing.T) {
		_, sess, obs := openRows(t)
		ctx := context.Background()
		open := nth(t, obs, "button", "Apri", 1)
		if res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: open.Ref}, open); res.Delivery != act.NotDelivered || res.Code != act.AmbiguousTarget {
			t.Fatalf("click on one of three \"Apri\" = %+v; want NotDelivered AMBIGUOUS_TARGET", res)
		}
	})
}

// openRows opens the rows page of a fresh rowsSite and returns the site, the session and its first
// observation.
func openRows(t *testing.T) (*rowsSite, *Session, *observe.Observation) {
	t.Helper()
	site := &rowsSite{}
	sess, _, _, _ := portalSession(t, site.handler())
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/righe"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return site, sess, obs
}
