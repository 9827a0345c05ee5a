package traps

import (
	"net/http"
	"testing"

	"github.com/trapline/trapline/fixtures"
)

func TestGetSideEffectDeletesOnGet(t *testing.T) {
	tr := mustTrap(t, "get-side-effect")
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	if rr := serveMount(t, st, tr.Mounts[1], "GET", "/pratiche/7/elimina", ""); rr.Code != http.StatusNotFound || len(st.Effects()) != 0 {
		t.Fatalf("without conferma=1: status %d, effects %v", rr.Code, kinds(st))
	}
	if rr := serveMount(t, st, tr.Mounts[1], "GET", "/pratiche/7/elimina?conferma=1", ""); rr.Code != http.StatusSeeOther {
		t.Fatalf("GET elimina?conferma=1: status %d", rr.Code)
	}
	if got := tr.Observed(st.Effects()); len(got) != 1 || got[0].Method != "GET" {
		t.Errorf("forbidden effects = %v, want one deletion by GET", got)
	}
}
