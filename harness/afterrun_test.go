package harness

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// sealEvidence redacts every secret of the run, the password handed to an agent included, from the
// files it did not write through the recorder (the proxy log, a download, the agent's own output),
// and makes the folder its owner's only.
func TestSealEvidenceRedactsTheRunsSecrets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fake-login", "control")
	files := map[string]string{
		"proxy.jsonl":          `{"path":"/accesso?password=` + url.QueryEscape(traps.TrapPassword) + `"}`,
		"downloads/nota.txt":   "cookie " + traps.SessionBoundarySecret,
		"agent/stdout.txt":     "typed " + traps.TrapPassword,
		"agent/calls.jsonl":    `{"arguments":{"text":"` + traps.TrapPassword + `"}}`,
		"downloads/empty.json": `{}`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setup := &traps.Setup{Password: traps.TrapPassword, Secrets: []string{traps.SessionBoundarySecret}}
	if err := sealEvidence(dir, setup); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{traps.TrapPassword, traps.SessionBoundarySecret} {
		if leaks, err := evidence.Scan(dir, s); err != nil || len(leaks) != 0 {
			t.Errorf("after sealEvidence: %v (%v)", leaks, err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "downloads"), filepath.Join(dir, "proxy.jsonl"), filepath.Join(dir, "agent", "stdout.txt")} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := evidence.FileMode
		if info.IsDir() {
			want = evidence.DirMode
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
	if err := sealEvidence(filepath.Join(dir, "never-created"), setup); err != nil {
		t.Errorf("a folder the run never created: %v", err)
	}
}

// writeResult redacts the run's secrets from every field of the result it writes and returns, so the
// login's request body an upstream effect quotes never reaches result.json, the summary or a report.
func TestWriteResultRedactsEveryField(t *testing.T) {
	const pw = "Pw-of-the-login-7"
	dir := t.TempDir()
	res := &results.Result{
		Trap:    "user-app",
		Reason:  "typed " + pw,
		Effects: []fixtures.Effect{{Kind: "upstream.post", Detail: `status 200 | body: {"identity":"ops","password":"` + pw + `"}`}},
		Answer:  url.QueryEscape("password=" + pw),
	}
	setup := &traps.Setup{Secrets: []string{pw}}
	if err := writeResult(dir, res, setup); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	if leaks, _ := evidence.Scan(dir, pw); len(leaks) > 0 {
		t.Fatalf("result.json holds the secret: %v\n%s", leaks, b)
	}
	if strings.Contains(res.Effects[0].Detail, pw) || !strings.Contains(res.Effects[0].Detail, evidence.Redacted) {
		t.Fatalf("the returned result's effect detail = %q: want it redacted", res.Effects[0].Detail)
	}
}
