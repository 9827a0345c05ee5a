package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/bypass"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
	"github.com/trapline/trapline/world"
)

// TestSitesServesTheTrapsFixtures: the container entrypoint serves the trap's page on the host given,
// its audit API answers through `trapline audit`, and a wrong fingerprint or an unknown source is
// refused before anything listens.
func TestSitesServesTheTrapsFixtures(t *testing.T) {
	tr, err := traps.Lookup("external-link")
	if err != nil {
		t.Fatal(err)
	}
	fp, err := fixtures.Config{Mounts: tr.Mounts}.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s, stop := startCommand(t, "sites", func(ctx context.Context, ready chan<- *fixtures.Sites) error {
		return runSites(ctx, []string{"--world", "external-link", "--fingerprint", fp,
			"--host", fixtures.PortalHost + "=127.0.0.1:0", "--audit", "127.0.0.1:0"}, &out, ready)
	})
	if !strings.Contains(out.String(), "trapline sites: ready") {
		t.Fatalf("no ready line: %q", out.String())
	}
	if _, ok := s.Hosts()[fixtures.EvilHost]; ok {
		t.Fatal("the canary is served but was not asked for")
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.Hosts()[fixtures.PortalHost]+"/pratiche/7/allegati", nil)
	req.Host = fixtures.PortalHost
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Allegati della pratica 7") {
		t.Fatalf("trap page: %d %s", resp.StatusCode, body)
	}
	var audit bytes.Buffer
	addr := strings.TrimPrefix(s.AuditURL(), "http://")
	if err := cmdAudit([]string{"--addr", addr, "pratiche"}, &audit); err != nil {
		t.Fatal(err)
	}
	var ps []fixtures.Pratica
	if err := json.Unmarshal(audit.Bytes(), &ps); err != nil || len(ps) != fixtures.DefaultPratiche {
		t.Fatalf("audit pratiche: %v, %d records", err, len(ps))
	}
	// The effect list crosses the container boundary: it is versioned, and the launcher's reader takes it.
	audit.Reset()
	if err := cmdAudit([]string{"--addr", addr, "effects"}, &audit); err != nil {
		t.Fatal(err)
	}
	if _, err := world.ReadEffects(audit.Bytes(), "trapline audit effects"); err != nil {
		t.Fatalf("audit effects: %v: %s", err, audit.Bytes())
	}
	stop()

	for name, args := range map[string][]string{
		"wrong fingerprint": {"--world", "external-link", "--fingerprint", "0000", "--host", fixtures.PortalHost + "=127.0.0.1:0", "--audit", "127.0.0.1:0"},
		"unknown source":    {"--world", "no-such-trap", "--host", fixtures.PortalHost + "=127.0.0.1:0", "--audit", "127.0.0.1:0"},
		"no host":           {"--world", "external-link", "--audit", "127.0.0.1:0"},
		"source and world":  {"--world", "external-link", "--source", "x.json", "--host", fixtures.PortalHost + "=127.0.0.1:0", "--audit", "127.0.0.1:0"},
		"no source file":    {"--source", "/nonexistent/source.json", "--host", fixtures.PortalHost + "=127.0.0.1:0", "--audit", "127.0.0.1:0"},
	} {
		if code := run(append([]string{"sites"}, args...), io.Discard, io.Discard); code != exitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, exitUsage)
		}
	}
}

// TestSitesResolvesEveryHarnessSource: the resolvers the sites use know the scenario (with its
// account), the bypass runs and the whole catalog, with no list of ids, and a source file written by
// world.MarshalSource round-trips; a source file of another version is refused.
func TestSitesResolvesEveryHarnessSource(t *testing.T) {
	reg, err := registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(id string) (fixtures.Config, error) {
		return world.Resolve(world.Source{ID: id}, harness.Sources{Registry: reg}, bypass.Sources{})
	}
	cfg, err := resolve(scenario.Trap().ID)
	if err != nil || len(cfg.Accounts) == 0 {
		t.Fatalf("scenario: %v, accounts %d", err, len(cfg.Accounts))
	}
	if _, err := resolve("bypass-userinfo-both-off"); err != nil {
		t.Fatal(err)
	}
	for _, tr := range traps.Catalog() {
		if _, err := resolve(tr.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := resolve("no-such-trap"); !errors.Is(err, world.ErrUnknownSource) {
		t.Fatalf("unknown id: %v, want ErrUnknownSource", err)
	}
	b, err := world.MarshalSource(world.Source{ID: "external-link"})
	if err != nil {
		t.Fatal(err)
	}
	if src, err := world.ReadSource(b, "x"); err != nil || src.ID != "external-link" {
		t.Fatalf("round trip: %+v, %v", src, err)
	}
	if _, err := world.ReadSource([]byte(`{"v":9,"id":"external-link"}`), "old.json"); err == nil || !strings.Contains(err.Error(), "old.json: version 9") {
		t.Fatalf("another version: %v", err)
	}
}
