package traps

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

func TestLoadPackGood(t *testing.T) {
	ts, err := LoadPack("testdata/pack-good")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 {
		t.Fatalf("got %d traps", len(ts))
	}
	tr := ts[0]
	if tr.ID != "purge-button" || tr.Category != Destructive || tr.StartPath != "/pratiche/12/note" || len(tr.Mounts) != 3 {
		t.Fatalf("trap %+v", tr)
	}
	if tr.Naive == nil || !tr.Naive.Caught || len(tr.Success) != 1 || tr.Guards[0] != policy.RuleDenyWord {
		t.Fatalf("naive %+v success %+v guards %v", tr.Naive, tr.Success, tr.Guards)
	}
	st := fixtures.NewState(20, nil)
	page := serve(t, tr.Mounts[0], st, http.MethodGet, "/pratiche/12/note")
	if page.Code != 200 || !strings.Contains(page.Body.String(), `href="http://static.interno.test/app.css"`) {
		t.Fatalf("page %d %q", page.Code, page.Body.String())
	}
	help := serve(t, tr.Mounts[1], st, http.MethodGet, "/pratiche/12/help")
	if !strings.Contains(help.Body.String(), "http://evil.example.test/x") {
		t.Fatalf("inline page %q", help.Body.String())
	}
	if got := st.Effects(); len(got) != 0 {
		t.Fatalf("pages recorded %v", got)
	}
	purge := serve(t, tr.Mounts[2], st, http.MethodPost, "/pratiche/12/purge")
	if purge.Code != http.StatusSeeOther || purge.Header().Get("Location") != "/pratiche" {
		t.Fatalf("route answered %d %v", purge.Code, purge.Header())
	}
	effects := st.Effects()
	if len(tr.Observed(effects)) != 1 || effects[0].Kind != fixtures.KindDeleted || effects[0].Detail != "purged" {
		t.Fatalf("effects %+v", effects)
	}
}

func serve(t *testing.T, m fixtures.Mount, st *fixtures.State, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(m.Pattern, m.Handler(st))
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, "http://"+fixtures.PortalHost+path, nil)
	mux.ServeHTTP(rec, req)
	return rec
}

func TestLoadPackNamesEveryMistakeWithFileLineField(t *testing.T) {
	_, err := LoadPack("testdata/pack-bad")
	var errs PackErrors
	if !errors.As(err, &errs) || !errors.Is(err, ErrPack) {
		t.Fatalf("want PackErrors, got %v", err)
	}
	want := []string{
		"testdata/pack-bad/missing.trap.yml:1:1: guards: required field is missing",
		"testdata/pack-bad/missing.trap.yml:1:1: incident: required field is missing",
		"testdata/pack-bad/mistakes.trap.yml:1:5: id: \"Mistakes\" is not kebab-case",
		"testdata/pack-bad/mistakes.trap.yml:3:11: incident: still says TODO",
		"testdata/pack-bad/mistakes.trap.yml:6:1: colour: unknown key",
		"testdata/pack-bad/mistakes.trap.yml:8:18: pages./pratiche/1/x: page file \"missing.html\"",
		"testdata/pack-bad/mistakes.trap.yml:14:15: forbidden[0].observer: unknown observer \"backdoor\"",
		"testdata/pack-bad/mistakes.trap.yml:16:11: forbidden[0].path: bad regular expression",
		"testdata/pack-bad/mistakes.trap.yml:18:10: guards[0]: unknown rule \"deny_wrod\"",
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("missing %q in:\n%s", w, msg)
		}
	}
	if n := len(strings.Split(msg, "\n")); n != len(want) {
		t.Errorf("%d problems, want %d (one per mistake):\n%s", n, len(want), msg)
	}
}

func TestBundleRoundTripAndFingerprint(t *testing.T) {
	ts, err := LoadPack("testdata/pack-good")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ts[0].Bundle()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	fp1, _ := fixtures.Config{Mounts: ts[0].Mounts}.Fingerprint()
	fp2, _ := fixtures.Config{Mounts: back.Mounts}.Fingerprint()
	if fp1 != fp2 || back.ID != ts[0].ID {
		t.Fatalf("rebuilt %s (%s), want %s (%s)", back.ID, fp2, ts[0].ID, fp1)
	}
	if _, err := mustTrap(t, "stale-ref").Bundle(); err == nil {
		t.Fatal("a Go trap has a bundle")
	}
}

func TestPolicyPatchAppliesPerArm(t *testing.T) {
	ts, err := LoadPack("testdata/pack-good")
	if err != nil {
		t.Fatal(err)
	}
	p := patchBase()
	got, err := ts[0].ApplyPolicyPatch(results.Control, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Budget.MaxActions != 20 || got.Budget.MaxNavigations != p.Budget.MaxNavigations {
		t.Fatalf("budget %+v", got.Budget)
	}
	if same, _ := ts[0].ApplyPolicyPatch(results.Guarded, p); same != p {
		t.Fatal("the guarded arm has no patch, but the policy changed")
	}
}

func TestRegistryRefusesDuplicatesAndSelects(t *testing.T) {
	r, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.LoadPack("testdata/pack-good"); err != nil {
		t.Fatal(err)
	}
	if err := r.LoadPack("testdata/pack-good"); err == nil {
		t.Fatal("the same pack loaded twice")
	}
	sel, err := r.Select("trap:purge-button,decoy-delete")
	if err != nil || len(sel) != 2 || sel[0].ID != "decoy-delete" || sel[1].ID != "purge-button" {
		t.Fatalf("select: %v %v", sel, err)
	}
	if _, err := r.Select("nope"); err == nil {
		t.Fatal("an unknown item selected something")
	}
}
