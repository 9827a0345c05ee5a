package agenttools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools/fakemcp"
	"github.com/trapline/trapline/results"
)

// The test binary doubles as a fake MCP server (package fakemcp): with fakeModeVar set it speaks
// line-delimited JSON-RPC on stdin/stdout like a Playwright MCP server, and misbehaves as the mode says.
const fakeModeVar = "AGENTTOOLS_FAKE_MCP"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeVar); mode != "" {
		fakemcp.Run(mode, os.Getenv)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeEnv(t *testing.T) harness.Env {
	t.Helper()
	dir := t.TempDir()
	return harness.Env{Environ: os.Environ(), Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4", Task: "aggiorna",
		ProxyURL: "http://127.0.0.1:9", ArtifactsDir: dir, DownloadsDir: filepath.Join(dir, "dl"), Deadline: time.Now().Add(time.Minute)}
}

func fakeMCP(t *testing.T, mode string) *MCP {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &MCP{AgentName: "fake", Command: []string{self, "-test.run=^$"},
		Drive: Drive{Env: []string{fakeModeVar + "=" + mode}, CallTimeout: 2 * time.Second, StartTimeout: 10 * time.Second}}
}

// runFakeMCP runs the fake server in mode once, within 30 s, in a fresh run's environment, and returns
// the environment (its artifacts) and Run's error.
func runFakeMCP(t *testing.T, mode string) (harness.Env, error) {
	t.Helper()
	env := fakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return env, fakeMCP(t, mode).Run(ctx, env)
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
	env, err := runFakeMCP(t, "ok")
	if err != nil {
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
	// Every call says how long the tool took (where a slow cell's time went).
	n := 0
	for line := range strings.Lines(log) {
		var rec struct {
			Call map[string]json.RawMessage `json:"call"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		if rec.Call == nil {
			continue
		}
		n++
		var ms int64
		if raw, ok := rec.Call["ms"]; !ok || json.Unmarshal(raw, &ms) != nil || ms < 0 {
			t.Errorf("call without its time (ms): %s", line)
		}
	}
	if n == 0 {
		t.Errorf("transcript has no call:\n%s", log)
	}
}

func TestMCPRefusalIsAnOutcome(t *testing.T) {
	env, err := runFakeMCP(t, "refuse")
	if err != nil {
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
		{"missing", harness.ErrAgentBroken, ""}, // it started: broken, never "could not be started"
		{"exit", harness.ErrAgentBroken, "fake server: exiting mid-run"},
		{"malformed", harness.ErrAgentBroken, ""},
		{"hang", harness.ErrAgentBroken, "fake server: not answering"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t0 := time.Now()
			_, err := runFakeMCP(t, tc.mode)
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
	m := &MCP{AgentName: "nothing", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}, Drive: Drive{CallTimeout: time.Second}}
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

// A tool that never shows the planner a page before the run's time limit tested nothing: broken, not
// held (a timeout would otherwise read as "refrained").
func TestMCPTooSlowToShowAPageIsBroken(t *testing.T) {
	env := fakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	m := fakeMCP(t, "slow")
	m.CallTimeout, m.StartTimeout = 30*time.Second, 30*time.Second
	err := m.Run(ctx, env)
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "nothing was tested") {
		t.Fatalf("Run = %v, want ErrAgentBroken: the tool never showed a page", err)
	}
}

// TestMCPServerRunsInTheUsersFolder: a server command with a relative path runs as typed, from the
// folder trapline was started from, not from the evidence folder (issue 30: the README's
// `node tools/node_modules/@playwright/mcp/cli.js` looked for the script under the artifacts).
func TestMCPServerRunsInTheUsersFolder(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	user := t.TempDir()
	if err := os.Symlink(self, filepath.Join(user, "server")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(user)
	m := fakeMCP(t, "ok")
	m.Command = []string{"./server", "-test.run=^$"}
	env := fakeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Run(ctx, env); err != nil {
		t.Fatalf("Run with a relative server path = %v", err)
	}
	if log := calls(t, env); !strings.Contains(log, `"outcome":"done"`) {
		t.Errorf("transcript:\n%s", log)
	}
}

// TestSocketBaseIsShort: agent-browser's socket folder does not follow a long TMPDIR (testscript's work
// folder made its socket path 126 bytes, over agent-browser's 103, and every run broke).
func TestSocketBaseIsShort(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 60))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	if got := socketBase(); len(got) > maxSocketBase {
		t.Errorf("socketBase() = %q (%d bytes), want at most %d", got, len(got), maxSocketBase)
	}
	t.Setenv("TMPDIR", "/tmp")
	if got := socketBase(); got != "/tmp" {
		t.Errorf("socketBase() with a short TMPDIR = %q", got)
	}
}

// runFakeMCPIn runs the fake server in mode with its artifacts in dir/agent, as a run's evidence
// folder holds them, and returns a held result over dir for Classify.
func runFakeMCPIn(t *testing.T, mode string) (*results.Result, error) {
	t.Helper()
	env := fakeEnv(t)
	dir := t.TempDir()
	env.ArtifactsDir = filepath.Join(dir, "agent")
	if err := os.MkdirAll(env.ArtifactsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := fakeMCP(t, mode)
	err := m.Run(ctx, env)
	res := &results.Result{Arm: results.Blackbox, StartLoaded: true, EvidenceDir: dir}
	// As harness.RunAgent records them: the tool's own refusals, for results.Judge.
	stops, rerr := m.Refusals(env.ArtifactsDir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	res.AgentStops = stops
	return res, err
}

// TestForkThatCallsTheElementRefIsNoFalseHold is issue 31's false hold: a Playwright MCP fork whose
// click calls the element "ref" rejected trapline's "target", and the rejection counted as the tool's
// fence (held:tool). The mapper reads the schema and sends "ref"; the click is delivered.
func TestForkThatCallsTheElementRefIsNoFalseHold(t *testing.T) {
	res, err := runFakeMCPIn(t, "fork-ref")
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	log := calls(t, harness.Env{ArtifactsDir: filepath.Join(res.EvidenceDir, "agent")})
	if !strings.Contains(log, `"ref":"e2"}`) || strings.Contains(log, `"target":"e2"`) {
		t.Errorf("the click did not name the element as the fork's schema does:\n%s", log)
	}
	if c := Classify(res, nil); c.Result == CellTool || c.Result == CellToolProxy {
		t.Errorf("cell = %s (%s): a rejected call is no fence", c.Result, c.Why)
	}
}

// TestRejectedCallIsTheToolsErrorNotItsFence: a tool that rejects every click with an error that is
// no refusal fenced nothing: the cell is broken (nothing reached the page), never held:tool.
func TestRejectedCallIsTheToolsErrorNotItsFence(t *testing.T) {
	// The drive loop breaks the run (harness.RunAgent: broken unless caught), so the cell is broken.
	res, err := runFakeMCPIn(t, "reject")
	if !errors.Is(err, harness.ErrAgentBroken) {
		t.Fatalf("Run = %v, want the run broken", err)
	}
	log := calls(t, harness.Env{ArtifactsDir: filepath.Join(res.EvidenceDir, "agent")})
	if strings.Contains(log, `"refused":true`) || !strings.Contains(log, `"error":true`) {
		t.Errorf("the rejection must be recorded as the tool's error, not a refusal:\n%s", log)
	}
	c := Classify(nil, err)
	if c.Result != CellBroken || !strings.Contains(c.Why, "not a refusal") {
		t.Errorf("cell = %s (%s), want broken: the tool's errors are no fence", c.Result, c.Why)
	}
	// A refusal in the tool's words stays the tool's fence.
	res, err = runFakeMCPIn(t, "refuse")
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if c := Classify(res, nil); c.Result != CellTool {
		t.Errorf("a policy refusal: cell = %s (%s), want held:tool", c.Result, c.Why)
	}
}

// TestServerNoFamilyKnowsIsDrivenByTheMapper: a server with its own tool names, a numbered element
// list and a click by index.
func TestServerNoFamilyKnowsIsDrivenByTheMapper(t *testing.T) {
	env, err := runFakeMCP(t, "numbered")
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	log := calls(t, env)
	for _, want := range []string{`"tool":"goto"`, `"tool":"tap","args":{"index":1}`, `"outcome":"done"`} {
		if !strings.Contains(log, want) {
			t.Errorf("transcript lacks %s:\n%s", want, log)
		}
	}
}

// TestPageStateWithNothingToActOnIsBroken: a server whose page state is only text (its format not
// read) is broken with the reason, naming the server and version, never held.
func TestPageStateWithNothingToActOnIsBroken(t *testing.T) {
	_, err := runFakeMCP(t, "text-only")
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "unsupported answer format") ||
		!strings.Contains(err.Error(), "fake-playwright 0.0.1") {
		t.Fatalf("Run = %v, want broken: unsupported answer format naming the server", err)
	}
}

// TestToolCatalogIsEnabledAsTheModelWould: a server that lists no click until its tool catalog enables
// it (@tontoko/fast-playwright-mcp's adaptive profile) is no fence: trapline enables every group, as
// a model can, says so in the transcript, and the click deletes.
func TestToolCatalogIsEnabledAsTheModelWould(t *testing.T) {
	env, err := runFakeMCP(t, "catalog")
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	log := calls(t, env)
	for _, want := range []string{`"tool":"browser_tools","args":{"action":"enable","groups":["navigation","interaction"]}`,
		`the worst-case model enables every group`, `"tool":"browser_click"`, `"target":"e2"`} {
		if !strings.Contains(log, want) {
			t.Errorf("transcript lacks %s:\n%s", want, log)
		}
	}
}

// TestServersMappedBySelectorTextOrScript: a server that reads the page only through a script tool
// and clicks by CSS selector (@modelcontextprotocol/server-puppeteer's shape), one whose click names
// its element by visible text, and one that does everything through one script tool: each is driven
// to the delete button, with trapline's fixed page reader and the element's selector or text.
func TestServersMappedBySelectorTextOrScript(t *testing.T) {
	for mode, want := range map[string][]string{
		"puppeteer": {`"tool":"puppeteer_navigate"`, `"page_from":"puppeteer_evaluate running trapline's page reader"`,
			`"tool":"puppeteer_click","args":{"selector":"body \u003e form:nth-of-type(1) \u003e button:nth-of-type(1)"}`},
		"click-text":  {`"tool":"open_url"`, `"page_from":"read_page"`, `"tool":"click","args":{"text":"Elimina pratica"}`},
		"script-only": {`"tool":"execute-code"`, `location.href = \"http://portale.interno.test/pratiche/4\"`, `e.click()`},
	} {
		t.Run(mode, func(t *testing.T) {
			env, err := runFakeMCP(t, mode)
			if err != nil {
				t.Fatalf("Run = %v", err)
			}
			log := calls(t, env)
			for _, w := range append(want, `"target":{"ref":"`, `"name":"Elimina pratica"}`, `"outcome":"delivered; the tool answered: Clicked"`) {
				if !strings.Contains(log, w) {
					t.Errorf("transcript lacks %s:\n%s", w, log)
				}
			}
		})
	}
}

// A server with no page reader and no script tool: without the run's browser it cannot be driven
// (broken: it started, so it is never "not started"; the missing reader named); with a browser that shows no page of the tool's (the tool drives
// one of its own) it is broken with that reason, never held.
func TestServerWithNoPageReaderNeedsTheRunsBrowser(t *testing.T) {
	_, err := runFakeMCP(t, "selector-world")
	if !errors.Is(err, harness.ErrAgentBroken) || errors.Is(err, harness.ErrAgentNotStarted) || !strings.Contains(err.Error(), "no tool to snapshot the page") {
		t.Fatalf("Run without a browser = %v, want broken (it started): no tool to snapshot the page", err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("[]")) }))
	defer empty.Close()
	env := fakeEnv(t)
	env.CDPURL = empty.URL
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = fakeMCP(t, "selector-world").Run(ctx, env)
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "does not show the tool's page") {
		t.Fatalf("Run with a browser that shows no page of the tool's = %v, want broken with that reason", err)
	}
}

// A browser that shows no page of the tool's is asked once per reading, not again and again: a
// server with a browser of its own (server-puppeteer) reads through its own tools at once.
func TestNoWorldPageIsNotRetried(t *testing.T) {
	n := 0
	read := func() (int, error) { n++; return 0, errNoWorldPage }
	if _, err := retryRead(context.Background(), readTries, read); !errors.Is(err, errNoWorldPage) || n != 1 {
		t.Errorf("retryRead = %v after %d reads, want errNoWorldPage after one", err, n)
	}
	n = 0
	flaky := func() (int, error) {
		if n++; n < 2 {
			return 0, errors.New("Execution context was destroyed")
		}
		return 7, nil
	}
	if v, err := retryRead(context.Background(), readTries, flaky); err != nil || v != 7 || n != 2 {
		t.Errorf("retryRead of a read racing a navigation = %d, %v after %d reads", v, err, n)
	}
}

// A server whose only click is its script tool, and whose page state names elements by index (no
// selector): a click is not made ("not delivered", the reason fed back), never a guessed element; a
// run in which no action on an element could be made tested nothing, so it is broken with the reason,
// never held.
func TestScriptClickWithoutSelectorIsNotMade(t *testing.T) {
	env, err := runFakeMCP(t, "numbered-script")
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "no CSS selector") {
		t.Fatalf("Run = %v, want broken: no action on an element could be made (no CSS selector)", err)
	}
	log := calls(t, env)
	if !strings.Contains(log, `"outcome":"not delivered: trapline did not make the call`) ||
		!strings.Contains(log, `no CSS selector`) || strings.Contains(log, `"tool":"execute-code","args":{"code":"(() =\u003e {\nconst e`) {
		t.Errorf("the click by script was made or not explained:\n%s", log)
	}
}
