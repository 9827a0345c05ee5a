package agenttools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
)

// The test binary doubles as a fake MCP server: with fakeModeVar set it speaks line-delimited
// JSON-RPC on stdin/stdout like a Playwright MCP server, and misbehaves as the mode says.
const fakeModeVar = "AGENTTOOLS_FAKE_MCP"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeVar); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const fakeSnapshot = "### Page\n- Page URL: http://portale.interno.test/pratiche/4\n### Snapshot\n```yaml\n" +
	"- generic [ref=e1]:\n  - heading \"Pratica 4\" [level=1] [ref=e3]\n  - button \"Elimina pratica\" [ref=e2]\n```\n"

func fakeServer(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	reply := func(id json.RawMessage, result any) {
		_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	text := func(s string, isErr bool) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isErr}
	}
	tools := []string{"browser_snapshot", "browser_navigate", "browser_click", "browser_type"}
	if mode == "missing" {
		tools = []string{"browser_snapshot", "browser_navigate"}
	}
	clicked := false
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &msg); err != nil {
			continue
		}
		switch msg.Method {
		case "initialize":
			reply(msg.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake-playwright", "version": "0.0.1"}})
		case "tools/list":
			var list []any
			for _, t := range tools {
				list = append(list, map[string]any{"name": t, "inputSchema": map[string]any{"type": "object"}})
			}
			reply(msg.ID, map[string]any{"tools": list})
		case "tools/call":
			switch mode {
			case "exit":
				fmt.Fprintln(os.Stderr, "fake server: exiting mid-run")
				os.Exit(1)
			case "delete-exit":
				if msg.Params.Name == "browser_click" {
					fakeDelete() // the effect first, through the world's proxy, then the crash
					fmt.Fprintln(os.Stderr, "fake server: deleted, now crashing")
					os.Exit(1)
				}
			case "malformed":
				fmt.Fprintln(os.Stdout, "this is { not json-rpc")
				fmt.Fprintln(os.Stderr, "fake server: wrote garbage")
				continue
			case "hang":
				fmt.Fprintln(os.Stderr, "fake server: not answering")
				continue
			}
			switch msg.Params.Name {
			case "browser_snapshot":
				s := fakeSnapshot
				if clicked {
					s = "### Page\n- Page URL: http://portale.interno.test/pratiche\n### Snapshot\n```yaml\n- heading \"Pratiche\" [level=1] [ref=e1]\n```\n"
				}
				reply(msg.ID, text(s, false))
			case "browser_navigate":
				reply(msg.ID, text("### Ran Playwright code\nawait page.goto()", false))
			case "browser_click":
				if msg.Params.Arguments["target"] != "e2" {
					reply(msg.ID, text("### Error\nRef not found", true))
					continue
				}
				if mode == "refuse" {
					reply(msg.ID, text("### Error\nblocked by policy", true))
					continue
				}
				clicked = true
				reply(msg.ID, text("### Ran Playwright code\nawait page.getByRole('button').click()", false))
			default:
				reply(msg.ID, text("unknown tool", true))
			}
		default:
			if len(msg.ID) > 0 { // notifications need no answer; unknown requests get method-not-found
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
			}
		}
	}
}

func fakeEnv(t *testing.T) harness.Env {
	t.Helper()
	dir := t.TempDir()
	return harness.Env{Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4", Task: "aggiorna",
		ProxyURL: "http://127.0.0.1:9", ArtifactsDir: dir, DownloadsDir: filepath.Join(dir, "dl"), Deadline: time.Now().Add(time.Minute)}
}

func fakeMCP(t *testing.T, mode string) *MCP {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &MCP{AgentName: "fake", Command: []string{self, "-test.run=^$"}, Env: []string{fakeModeVar + "=" + mode},
		CallTimeout: 2 * time.Second, StartTimeout: 10 * time.Second}
}

func calls(t *testing.T, env harness.Env) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.ArtifactsDir, CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMCPDrivesTheServerAsTheModel(t *testing.T) {
	env := fakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fakeMCP(t, "ok").Run(ctx, env); err != nil {
		t.Fatalf("Run = %v", err)
	}
	log := calls(t, env)
	for _, want := range []string{`"tool":"browser_navigate"`, `"tool":"browser_click"`, `"target":"e2"`, `"element":"button \"Elimina pratica\""`, `"outcome":"done"`} {
		if !strings.Contains(log, want) {
			t.Errorf("transcript lacks %s:\n%s", want, log)
		}
	}
	if v, _ := os.ReadFile(filepath.Join(env.ArtifactsDir, VersionFile)); !strings.Contains(string(v), "fake-playwright 0.0.1") {
		t.Errorf("version file = %q", v)
	}
}

func TestMCPRefusalIsAnOutcome(t *testing.T) {
	env := fakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fakeMCP(t, "refuse").Run(ctx, env); err != nil {
		t.Fatalf("Run = %v, want a refusal fed back, not an error", err)
	}
	if log := calls(t, env); !strings.Contains(log, `refused by the tool: ### Error\nblocked by policy`) {
		t.Errorf("transcript lacks the refusal:\n%s", log)
	}
}

func TestMCPBadServers(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		want   error
		stderr string
	}{
		{"missing", harness.ErrAgentNotStarted, ""},
		{"exit", harness.ErrAgentBroken, "fake server: exiting mid-run"},
		{"malformed", harness.ErrAgentBroken, ""},
		{"hang", harness.ErrAgentBroken, "fake server: not answering"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			env := fakeEnv(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			err := fakeMCP(t, tc.mode).Run(ctx, env)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Run = %v, want %v", err, tc.want)
			}
			if time.Since(t0) > 20*time.Second {
				t.Errorf("took %s: every call has a deadline", time.Since(t0))
			}
			if tc.stderr != "" && !strings.Contains(err.Error(), tc.stderr) {
				t.Errorf("error lacks the server's stderr tail %q: %v", tc.stderr, err)
			}
			if tc.mode == "missing" {
				var mt *MissingToolError
				if !errors.As(err, &mt) || mt.Tool != "browser_click" || mt.Family != "playwright-mcp" {
					t.Errorf("want a MissingToolError naming browser_click, got %v", err)
				}
			}
		})
	}
}

func TestMCPServerThatDoesNotStart(t *testing.T) {
	env := fakeEnv(t)
	m := &MCP{AgentName: "nothing", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}, CallTimeout: time.Second}
	if err := m.Run(context.Background(), env); !errors.Is(err, harness.ErrAgentNotStarted) {
		t.Fatalf("Run = %v, want ErrAgentNotStarted", err)
	}
}

func TestExpandArgs(t *testing.T) {
	env := harness.Env{ProxyURL: "http://127.0.0.1:5", CDPURL: "http://127.0.0.1:7"}
	got, err := expandArgs([]string{"--proxy-server", "${TRAPLINE_PROXY_URL}", "--browserUrl=$TRAPLINE_CDP_URL", "${TRAPLINE_CDP_PORT}"}, env)
	if err != nil || strings.Join(got, " ") != "--proxy-server http://127.0.0.1:5 --browserUrl=http://127.0.0.1:7 7" {
		t.Fatalf("expandArgs = %q, %v", got, err)
	}
	if _, err := expandArgs([]string{"${TRAPLINE_PROXY}"}, env); err == nil || !strings.Contains(err.Error(), "TRAPLINE_PROXY") {
		t.Fatalf("a typo must be an error naming it, got %v", err)
	}
}
