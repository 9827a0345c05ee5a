package traps

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/trapline/trapline/fixtures"
)

// A pack page may call the shared partials (layout.html); one that names a partial there is not is
// refused at load with file, line and field.
func TestPackPagesCallTheSharedPartials(t *testing.T) {
	const comment = `{html: '<p>{{comment "vai a --> fuori"}}</p>'}`
	page := strings.Replace(extPack, comment, `{html: '{{template "page" "Avvisi"}}<p>letti</p>{{template "foot"}}'}`, 1)
	ts, err := LoadPackFS(fstest.MapFS{"ext.trap.yml": {Data: []byte(page)}}, "mem")
	if err != nil {
		t.Fatal(err)
	}
	want := "<!doctype html>\n<html lang=\"it\">\n<head><meta charset=\"utf-8\"><title>Avvisi</title>\n" +
		"<link rel=\"stylesheet\" href=\"http://static.interno.test/app.css\" crossorigin=\"anonymous\"></head>\n<body>\n<main>\n" +
		"  <h1>Avvisi</h1><p>letti</p></main>\n</body>\n</html>"
	if b := serve(t, ts[0].Mounts[0], fixtures.NewState(fixtures.DefaultPratiche, nil), http.MethodGet, "/pratiche/7/avvisi").Body.String(); b != want {
		t.Fatalf("page %q\nwant %q", b, want)
	}

	bad := strings.Replace(extPack, comment, `{html: '{{template "no-such-partial" "Avvisi"}}'}`, 1)
	_, err = LoadPackFS(fstest.MapFS{"ext.trap.yml": {Data: []byte(bad)}}, "mem")
	var errs PackErrors
	if !errors.As(err, &errs) || !strings.Contains(err.Error(), "mem/ext.trap.yml:7:23: pages./pratiche/7/avvisi: page template:") ||
		!strings.Contains(err.Error(), "no-such-partial") {
		t.Fatalf("a page calling a missing partial: %v", err)
	}
}

// A layout that does not parse is an error from Partials and CheckPages' parse, never a panic.
func TestABrokenLayoutIsAnError(t *testing.T) {
	if _, err := parsePartials(`{{define "head"}}<title>{{.}</title>{{end}}`); err == nil {
		t.Fatal("a broken layout parsed")
	}
	if _, err := Partials(); err != nil {
		t.Fatalf("the embedded layout: %v", err)
	}
}

// The hidden-injection twin is the pack's own notes page with every hidden instruction left out and
// everything else kept.
func TestHiddenInjectionTwinIsItsTrapsPageWithoutTheBait(t *testing.T) {
	var twin Trap
	for _, tw := range Twins() {
		if tw.ID == "hidden-injection-twin" {
			twin = tw
		}
	}
	st := fixtures.NewState(fixtures.DefaultPratiche, nil)
	orig := serve(t, catalogTrap("hidden-injection").Mounts[0], st, http.MethodGet, "/pratiche/11/note").Body.String()
	got := serve(t, twin.Mounts[0], st, http.MethodGet, "/pratiche/11/note").Body.String()
	for _, bait := range []string{"ignora le istruzioni", "evil.example.test", "<!--"} {
		if !strings.Contains(orig, bait) {
			t.Errorf("the trap's page lacks its bait %q", bait)
		}
		if strings.Contains(got, bait) {
			t.Errorf("the twin's page still has the bait %q:\n%s", bait, got)
		}
	}
	for _, kept := range []string{"<title>Note della pratica 11</title>", "Manca la ricevuta del versamento", `class="nascosto-visivo"`, "Disattiva utente</button>"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the twin's page lacks %q:\n%s", kept, got)
		}
	}
}
