package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
)

// panelPage is a record list with a side panel over its right half (an overlay neither inert nor
// aria-modal) whose "More options" menu is open, and a list row whose "Delete" lies under the panel
// while its "Open" does not; a long list below the fold is left to the test at dispatch.
const panelPage = `<!doctype html><title>Records</title><style>
body { margin: 0; font: 16px sans-serif }
table { width: 100%; border-collapse: collapse } td { padding: 8px; height: 30px }
aside { position: fixed; top: 0; right: 0; width: 50%; height: 100vh; background: #fff; border-left: 1px solid #000 }
.menu { position: absolute; top: 50px; right: 10px; background: #eee }
</style>
<main><h1>Records</h1><table><tr><td><button>Open</button></td><td style="text-align:right"><button>Delete</button></td></tr></table>
<div style="height: 2000px"></div><button>Far below</button></main>
<aside class="panel"><button>Close</button><input aria-label="stato" value="aperta"><button>More options</button>
<div class="menu" role="menu"><div role="menuitem" tabindex=0>Delete record</div><div role="menuitem" tabindex=0>Duplicate</div></div></aside>`

// TestObservationMarksWhatIsCovered (issue 53.2): the elements under the side panel are marked
// covered by it, the panel's and its menu's are on top, an element out of the viewport is left to
// the test at dispatch; a click on a covered element is refused (target_covered) and reaches nothing.
func TestObservationMarksWhatIsCovered(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pratiche/elenco", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, panelPage)
	})
	sess, _, _, _ := portalSession(t, mux)
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/elenco"); res.Err != nil {
		t.Fatal(res.Err)
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"button Delete": "aside.panel", "button Open": "", "button Close": "", "textbox stato": "",
		"button More options": "", "menuitem Delete record": "", "menuitem Duplicate": "", "button Far below": "",
	}
	for key, by := range want {
		var role, name string
		fmt.Sscanf(key, "%s", &role)
		name = key[len(role)+1:]
		n, ok := find(obs, role, name)
		if !ok {
			t.Fatalf("no %s in\n%s", key, obs.Raw)
		}
		if n.CoveredBy != by {
			t.Errorf("%s: covered by %q, want %q", key, n.CoveredBy, by)
		}
	}
	del, _ := find(obs, "button", "Delete")
	res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: del.Ref}, del)
	if res.Delivery != act.NotDelivered || res.Code != act.TargetCovered {
		t.Fatalf("a covered click: %+v, want not delivered, target_covered", res)
	}
}

// togglesPage is a record list whose row checkboxes are 0×0 inputs drawn by their labels, as
// dashboards style them: a field wrapper with the input and an empty label for it, and a label
// around the input; and two visible checkboxes their label's drawing covers (a checkmark inside a
// label around the input, a label for it laid over it).
const togglesPage = `<!doctype html><title>Records</title><style>
input.h { position: absolute; width: 0; height: 0; opacity: 0 }
label.b::before { content: ""; display: inline-block; width: 16px; height: 16px; border: 1px solid }
.m { position: relative; display: inline-block; width: 20px; height: 20px }
.m input { margin: 0; width: 20px; height: 20px }
.check, .over { position: absolute; inset: 0; background: #08c }
</style><table>
<tr><td><div class="form-field"><input class=h type=checkbox id=c1 aria-label="Select pratica 1"><label class=b for=c1></label></div></td><td>pratica 1</td></tr>
<tr><td><label class=b><input class=h type=checkbox aria-label="Select pratica 2"></label></td><td>pratica 2</td></tr>
<tr><td><label class=m><input type=checkbox aria-label="Select pratica 3"><span class=check></span></label></td><td>pratica 3</td></tr>
<tr><td><span class=m><input type=checkbox id=c4 aria-label="Select pratica 4"><label class=over for=c4></label></span></td><td>pratica 4</td></tr>
</table>`

// TestHiddenTogglesAreClickedThroughTheirLabel (issue 53.2): a 0×0 checkbox under a styled label is
// in the observation with a ref (its wrapper's), and a checkbox its label's drawing covers is on top
// by its label; a click on either checks it, through the label.
func TestHiddenTogglesAreClickedThroughTheirLabel(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pratiche/elenco", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, togglesPage)
	})
	sess, _, _, _ := portalSession(t, mux)
	ctx := context.Background()
	if res := sess.Goto(ctx, "http://portale.interno.test/pratiche/elenco"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, name := range []string{"Select pratica 1", "Select pratica 2", "Select pratica 3", "Select pratica 4"} {
		obs, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		box, ok := find(obs, "checkbox", name)
		if !ok || !box.ViaLabel || box.CoveredBy != "" {
			t.Fatalf("%s: %+v in\n%s", name, box, obs.Raw)
		}
		res := sess.Act(ctx, obs, action.Action{Kind: action.Click, Ref: box.Ref}, box)
		if res.Delivery != act.Delivered {
			t.Fatalf("%s: %+v", name, res)
		}
		after, err := sess.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if now, _ := find(after, "checkbox", name); now.States["checked"] != "true" {
			t.Fatalf("%s is not checked after the click: %+v", name, now)
		}
	}
}

func TestPlaywrightsHitTestIsTargetCovered(t *testing.T) {
	err := fmt.Errorf("Locator.Hover: Timeout 3000ms exceeded.\nCall log:\n  - <aside class=\"panel\">…</aside> intercepts pointer events\n  - retrying hover action")
	if got := undeliveredCode(err); got != act.TargetCovered {
		t.Fatalf("an intercepted hover: %s, want target_covered", got)
	}
	if got := undeliveredCode(fmt.Errorf("element is not enabled")); got != act.DispatchFailed {
		t.Fatalf("a disabled target: %s, want DISPATCH_FAILED", got)
	}
}
