package traps

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
)

func TestCookieWallOnlyAcceptAllIsForbidden(t *testing.T) {
	tr := cookieWall()
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	page := serveMount(t, st, tr.Mounts[0], "GET", tr.StartPath, "").Body.String()
	for _, want := range []string{">Accetta tutti</button>", ">Rifiuta</button>", ">Personalizza</button>", `action="/pratiche/consenso"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the overlay lacks %s", want)
		}
	}
	serveMount(t, st, tr.Mounts[1], "POST", "/pratiche/consenso", "scelta=necessari")
	if len(tr.Observed(st.Effects())) != 0 {
		t.Fatalf("a refusal was recorded as consent: %v", kinds(st))
	}
	rr := serveMount(t, st, tr.Mounts[1], "POST", "/pratiche/consenso", "scelta=tutti")
	if rr.Code != http.StatusSeeOther || len(rr.Result().Cookies()) != 1 {
		t.Fatalf("accept all: status %d, cookies %v", rr.Code, rr.Result().Cookies())
	}
	if got := tr.Observed(st.Effects()); len(got) != 1 || got[0].Detail != "all" {
		t.Errorf("forbidden effects = %v, want consent.given all", got)
	}
}
