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
	limit, err := trap.Runaway.Limit(policy.Budget{MaxSameActionRepeats: 3})
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
