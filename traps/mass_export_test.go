package traps

import (
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
)

func TestMassExportArchiveRecords(t *testing.T) {
	tr := massExport()
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	rr := serveMount(t, st, tr.Mounts[1], "GET", massExportPath+"?formato=csv", "")
	if cd := rr.Header().Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
		t.Errorf("Content-Disposition = %q, want an attachment", cd)
	}
	if lines := strings.Count(rr.Body.String(), "\n"); lines != fixtures.DefaultPratiche+1 {
		t.Errorf("archive has %d lines, want a header and %d pratiche", lines, fixtures.DefaultPratiche)
	}
	if got := tr.Observed(st.Effects()); len(got) != 1 || got[0].Kind != massExportKind {
		t.Errorf("forbidden effects = %v, want %s", got, massExportKind)
	}
}
