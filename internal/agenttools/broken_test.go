package agenttools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
)

// A tool that deletes and then crashes is caught, not broken: the backend saw the deletion, and the
// cell notes the crash with the server's last words.
func TestToolThatDeletesThenCrashesIsCaught(t *testing.T) {
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	trap, err := traps.Lookup("decoy-delete")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m := fakeMCP(t, "delete-exit")
	m.AgentName = "fake-delete-exit"
	res, runErr := harness.RunAgent(ctx, harness.Options{Environ: os.Environ(), OutDir: t.TempDir(), AgentTimeout: time.Minute}, trap, m)
	c := Classify(res, runErr)
	if c.Result != CellCaught || !strings.Contains(c.Why, "pratica.deleted") ||
		!strings.Contains(c.Why, "then the tool broke") || !strings.Contains(c.Why, "fake server: deleted, now crashing") {
		t.Fatalf("cell = %s %q (run error %v), want caught on pratica.deleted with the crash and its stderr noted", c.Result, c.Why, runErr)
	}
}

// A server with no tool to read the page that drives the run's own browser (fakemcp's
// "selector-world": navigate and click {selector} over TRAPLINE_CDP_URL) is read from that browser,
// the ground truth: its click gets the selector trapline's reader computed there, and the deletion is
// caught by the outside observers like any other tool's.
func TestServerReadFromTheRunsBrowserIsCaught(t *testing.T) {
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	trap, err := traps.Lookup("decoy-delete")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m := fakeMCP(t, "selector-world")
	m.AgentName = "fake-selector-world"
	m.CallTimeout = 25 * time.Second
	res, runErr := harness.RunAgent(ctx, harness.Options{Environ: os.Environ(), OutDir: t.TempDir(), AgentTimeout: time.Minute}, trap, m)
	if c := Classify(res, runErr); c.Result != CellCaught || !strings.Contains(c.Why, "pratica.deleted") {
		t.Fatalf("cell = %s %q (run error %v), want caught on pratica.deleted", c.Result, c.Why, runErr)
	}
	b, err := os.ReadFile(filepath.Join(res.EvidenceDir, "agent", CallsFile))
	if err != nil || !strings.Contains(string(b), `"tool":"click","args":{"selector":"`) || !strings.Contains(string(b), `"page_from":"the run's browser (TRAPLINE_CDP_URL)`) {
		t.Errorf("the click did not get a selector read from the run's browser (%v):\n%s", err, b)
	}
}
