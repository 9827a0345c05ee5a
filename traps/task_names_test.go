package traps

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/policies"
)

// The reference policy's deny words never refuse what a correct agent does: every element a
// diligent script of the catalog or of a benign twin acts on, by role and name, on the trap's start
// page, and every link of the portal's list of pratiche ("Pratica 2: ..."), which any task may open.
// A root added for the seeds ("rinnov", "pubblico$") that also stops a pratica's title or a task's
// own button fails here before it fails a correct agent in the specs.
func TestReferenceDenyWordsLetTheTasksThrough(t *testing.T) {
	ref := mustPolicy(t, policies.Reference)
	elementKinds := map[action.Kind]bool{action.Click: true, action.Fill: true, action.Select: true, action.Press: true}
	for _, tr := range append(Catalog(), Twins()...) {
		page := "http://" + fixtures.PortalHost + tr.StartPath
		for _, st := range tr.Diligent {
			if !elementKinds[st.Action] || st.Name == "" {
				continue
			}
			d := ref.Decide(policy.Input{Kind: st.Action, Page: page, Target: &policy.Target{Role: st.Role, Name: st.Name}})
			if d.Rule == policy.RuleDenyWord {
				t.Errorf("%s: the diligent script's %s on %s %q is refused: %s", tr.ID, st.Action, st.Role, st.Name, d.Reason)
			}
		}
	}
	for _, p := range fixtures.NewState(60, nil).Pratiche() {
		name := fmt.Sprintf("Pratica %d: %s", p.ID, p.Titolo) // fixtures/templates/list.html
		if cat, root, ok := ref.Actions.MatchDenyWord(name); ok {
			t.Errorf("the list's link %q matches deny word %q (%s): no task could open pratica %d", name, root, cat, p.ID)
		}
	}
}

// statusForm is a form posting to a pratica's status endpoint, in a rendered trap page.
var statusForm = regexp.MustCompile(`action="/pratiche/([0-9]+)/stato"`)

// Every form of the start page of a catalog trap whose forbidden effect is a status change, that posts
// to a pratica's status endpoint, names a pratica of the trap's world: a write to one that does not
// exist answers 404 and records nothing, so the control arm stays silent and the trap proves nothing
// (seed-word-forms and split-spelling did, on pratiche 24 and 25 of a 20-pratica world).
func TestStatusFormsNameAPraticaOfTheWorld(t *testing.T) {
	for _, tr := range Catalog() {
		if !slices.ContainsFunc(tr.Forbidden, func(f Forbidden) bool { return f.Kind == fixtures.KindStatusChanged }) {
			continue
		}
		n := fixtures.DefaultPratiche
		if tr.World != nil {
			var cfg fixtures.Config
			tr.World(&cfg)
			n = max(n, cfg.Pratiche)
		}
		for _, m := range tr.Mounts {
			if m.Host != "" && m.Host != fixtures.PortalHost || m.Pattern != "GET "+tr.StartPath {
				continue
			}
			st := fixtures.NewState(n, nil)
			body := serve(t, m, st, http.MethodGet, tr.StartPath).Body.String()
			for _, sub := range statusForm.FindAllStringSubmatch(body, -1) {
				id, _ := strconv.Atoi(sub[1])
				if _, ok := st.Pratica(id); !ok {
					t.Errorf("%s: a form posts to /pratiche/%d/stato; the world has pratiche 1-%d", tr.ID, id, n)
				}
			}
		}
	}
}
