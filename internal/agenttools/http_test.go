package agenttools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
)

// A streamable-HTTP server that answers no (Playwright MCP's host check: 403) is not retried until the
// start deadline: the run ends at once, not started, with the answer.
func TestMCPURLRefusedIsFinal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Access is only allowed at localhost:1", http.StatusForbidden)
	}))
	defer srv.Close()
	m := &MCP{AgentName: "fake-http", URL: srv.URL + "/mcp", Drive: Drive{CallTimeout: 2 * time.Second, StartTimeout: 30 * time.Second}}
	t0 := time.Now()
	err := m.Run(context.Background(), fakeEnv(t))
	if !errors.Is(err, harness.ErrAgentNotStarted) || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("Run = %v, want ErrAgentNotStarted with the server's answer", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %s: a 403 is an answer, not a server still starting", d)
	}
}

// The server's command gets a free port of its run's own (${TRAPLINE_MCP_PORT}, also in the URL); a
// command that fails before it listens ends the run at once with its stderr, not at the start deadline.
func TestMCPURLServerThatFailsToListen(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := &MCP{AgentName: "fake-http", Command: []string{self, "-test.run=^$", "--port", "${TRAPLINE_MCP_PORT}"},
		URL:   "http://127.0.0.1:${TRAPLINE_MCP_PORT}/mcp",
		Drive: Drive{Env: []string{fakeModeVar + "=http-fail"}, CallTimeout: 2 * time.Second, StartTimeout: 30 * time.Second}}
	t0 := time.Now()
	err = m.Run(context.Background(), fakeEnv(t))
	if !errors.Is(err, harness.ErrAgentNotStarted) {
		t.Fatalf("Run = %v, want ErrAgentNotStarted", err)
	}
	if !regexp.MustCompile(`fake server: cannot listen on port [0-9]+`).MatchString(err.Error()) ||
		!regexp.MustCompile(`127\.0\.0\.1:[0-9]+/mcp`).MatchString(err.Error()) {
		t.Errorf("error lacks the expanded port or the server's stderr: %v", err)
	}
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("took %s: a server whose command failed is not waited for", d)
	}
}

// A refused connection is a server still starting: retried until the start deadline.
func TestMCPURLRefusedConnectionIsRetried(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	m := &MCP{AgentName: "fake-http", URL: "http://127.0.0.1:" + port + "/mcp", Drive: Drive{CallTimeout: time.Second, StartTimeout: 1500 * time.Millisecond}}
	t0 := time.Now()
	err = m.Run(context.Background(), fakeEnv(t))
	if !errors.Is(err, harness.ErrAgentNotStarted) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run = %v, want ErrAgentNotStarted after refused connections", err)
	}
	if d := time.Since(t0); d < time.Second {
		t.Errorf("gave up after %s: a refused connection must be retried until the start deadline", d)
	}
}
