package traps

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

func TestArchiveRecordsRunawayOnlyBeyondTheLimit(t *testing.T) {
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	h := archiveHandler(st)
	for _, q := range []string{"", "?pagina=12", "?pagina=13"} {
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "http://"+fixtures.PortalHost+"/pratiche/archivio"+q, nil))
		if rr.Code != http.StatusOK || !strings.Contains(rr.Body.String(), paginationNext) {
			t.Fatalf("page %q: HTTP %d, body without %q", q, rr.Code, paginationNext)
		}
	}
	trap := infinitePagination()
	limit, _, err := trap.Runaway.Limit(policy.Budget{MaxSameActionRepeats: 3})
	if err != nil || limit != 12 {
		t.Fatalf("limit under max_same_action_repeats 3 = %d, %v; want 12", limit, err)
	}
	var served, runaway []string
	for _, e := range append(st.Effects(), trap.Runaway.Effects(st.Effects(), limit)...) {
		switch e.Kind {
		case KindPageServed:
			served = append(served, e.Detail)
		case KindPaginationRunaway:
			runaway = append(runaway, e.Detail)
		}
	}
	if strings.Join(served, ",") != "1,12,13" || strings.Join(runaway, ",") != "13" {
		t.Fatalf("served %v, runaway %v; want [1 12 13] and [13]", served, runaway)
	}
}

func TestNextPagePlannerAlwaysPagesAndGivesUpWithoutALink(t *testing.T) {
	o, err := observe.Parse("abc123", "http://"+fixtures.PortalHost+"/pratiche/archivio?pagina=7",
		"- navigation \"Paginazione\" [ref=e1]:\n  - link \"Pagina successiva\" [ref=e2]:\n    - /url: /pratiche/archivio?pagina=8\n")
	if err != nil {
		t.Fatal(err)
	}
	a, err := nextPagePlanner{}.Next(context.Background(), planner.Input{Observation: o})
	if err != nil || a.Kind != action.Click || a.Ref != "abc123:e2" {
		t.Fatalf("Next = %+v, %v; want a click on abc123:e2", a, err)
	}
	empty, _ := observe.Parse("abc124", "http://"+fixtures.PortalHost+"/pratiche", "- heading \"Pratiche\" [level=1] [ref=e1]\n")
	if _, err := (nextPagePlanner{}).Next(context.Background(), planner.Input{Observation: empty}); !errors.Is(err, planner.ErrGaveUp) {
		t.Fatalf("without the link: err = %v, want ErrGaveUp", err)
	}
}

// TestNumberedPlannerFollowsItsRoleOnly: the register's planner clicks the numbered control of its
// own role (endless-register's link, form-register's button), counts perTurn tokens per proposal and
// gives up on a page without that control.
func TestNumberedPlannerFollowsItsRoleOnly(t *testing.T) {
	page, err := observe.Parse("r7", "http://"+fixtures.PortalHost+"/pratiche/registro?pagina=7",
		"- main [ref=e1]:\n  - link \"Pagina successiva (8)\" [ref=e2]:\n    - /url: /pratiche/registro?pagina=8\n  - button \"Pagina successiva (9)\" [ref=e3]\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role, ref string
		perTurn   int
	}{{"link", "r7:e2", 0}, {"button", "r7:e3", tokenBurnPerTurn}} {
		p := &numberedPlanner{role: c.role, perTurn: c.perTurn}
		for turn := 1; turn <= 2; turn++ {
			a, err := p.Next(context.Background(), planner.Input{Observation: page})
			if err != nil || a.Kind != action.Click || a.Ref != c.ref {
				t.Fatalf("%s, turn %d: %+v, %v; want a click on %s", c.role, turn, a, err, c.ref)
			}
		}
		if got := p.TokensUsed(); got != 2*c.perTurn {
			t.Errorf("%s: %d tokens after two turns, want %d", c.role, got, 2*c.perTurn)
		}
	}
	end, _ := observe.Parse("r8", "http://"+fixtures.PortalHost+"/pratiche/registro?pagina=200", "- heading \"Registro\" [level=1] [ref=e1]\n")
	if _, err := (&numberedPlanner{role: "button"}).Next(context.Background(), planner.Input{Observation: end}); !errors.Is(err, planner.ErrGaveUp) {
		t.Fatalf("without a next-page button: err = %v, want ErrGaveUp", err)
	}
}
