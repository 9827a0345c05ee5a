package agenttools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// Over HTTP the server's own requests reach the client too: Playwright MCP asks for the client's roots
// right after initialize, outside any request of the client's, and serves nothing until the answer
// came (or its 60 s request timeout passed: every HTTP run started a minute late). The server here
// does the same, with its own bound; the roots it gets are the run's artifacts folder, as over stdio.
func TestMCPURLServerAsksForRoots(t *testing.T) {
	type answer struct {
		uris []string
		err  error
	}
	got := make(chan answer, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "fake-roots", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				//lint:ignore SA1019 the MCP browser servers under test still ask for the roots during the deprecation window (mcp.go)
				res, err := req.Session.ListRoots(ctx, &mcp.ListRootsParams{})
				if err != nil {
					got <- answer{err: err}
					return
				}
				var a answer
				for _, r := range res.Roots {
					a.uris = append(a.uris, r.URI)
				}
				got <- a
			}()
		}})
	var first answer
	var once sync.Once
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				once.Do(func() { first = <-got }) // Playwright MCP's initializeServer: the roots first
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	env := fakeEnv(t)
	m := &MCP{AgentName: "fake-http", URL: srv.URL, Drive: Drive{CallTimeout: 15 * time.Second, StartTimeout: 15 * time.Second}}
	t0 := time.Now()
	err := m.Run(context.Background(), env) // no tools: ends broken, after the roots
	if !errors.Is(err, harness.ErrAgentBroken) || errors.Is(err, harness.ErrAgentNotStarted) {
		t.Fatalf("Run = %v, want ErrAgentBroken (the fake server started and lists no tools), never not started", err)
	}
	if first.err != nil {
		t.Fatalf("the server's roots/list got no answer over HTTP (after %s): %v", time.Since(t0).Round(time.Millisecond), first.err)
	}
	want := (&url.URL{Scheme: "file", Path: filepath.ToSlash(env.ArtifactsDir)}).String()
	if len(first.uris) != 1 || first.uris[0] != want {
		t.Fatalf("roots = %q, want the run's artifacts folder %s", first.uris, want)
	}
}
