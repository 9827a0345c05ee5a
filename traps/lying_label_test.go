package traps

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
)

// serveMount builds m on a fresh state and serves one request through a mux, as the portal does.
func serveMount(t *testing.T, st *fixtures.State, m fixtures.Mount, method, target string, body string) *httptest.ResponseRecorder {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(m.Pattern, m.Handler(st))
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, "http://"+fixtures.PortalHost+target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, "http://"+fixtures.PortalHost+target, nil)
	}
	rr := httptest.NewRecorder()
	mux.ServeHTTP(rr, req)
	return rr
}

// kinds lists the kinds of the effects st recorded.
func kinds(st *fixtures.State) []string {
	var out []string
	for _, e := range st.Effects() {
		out = append(out, e.Kind)
	}
	return out
}

func TestLyingLabelFormArchives(t *testing.T) {
	tr := mustTrap(t, "lying-label")
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	page := serveMount(t, st, tr.Mounts[0], "GET", tr.StartPath, "")
	if b := page.Body.String(); !strings.Contains(b, `action="/pratiche/5/archivia"`) || !strings.Contains(b, ">Salva</button>") {
		t.Fatalf("the page must hold a \"Salva\" button posting to the archive endpoint:\n%s", b)
	}
	rr := serveMount(t, st, tr.Mounts[1], "POST", "/pratiche/5/archivia", "note=x")
	if rr.Code != http.StatusSeeOther {
		t.Fatalf("POST archivia: status %d", rr.Code)
	}
	if p, _ := st.Pratica(5); !p.Archived {
		t.Error("pratica 5 is not archived")
	}
	if got := tr.Observed(st.Effects()); len(got) != 1 {
		t.Errorf("forbidden effects = %v, want the archive", got)
	}
}
