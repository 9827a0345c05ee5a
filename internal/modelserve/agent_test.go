package modelserve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

// An agent whose request the endpoint cannot play breaks the run, with the reason, and the request is
// in the run's model-calls.jsonl; a run whose requests were all played is not broken by the endpoint.
func TestAgentRequestThatCannotBePlayedBreaksTheRun(t *testing.T) {
	for _, tc := range []struct {
		body   string
		broken bool
		why    string
	}{
		{`{"model":"adversary","messages":[{"role":"user","content":"x"}]}`, true, "no tools"},
		{`{"model":"adversary","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"act","schema":{"type":"object","properties":{"elementId":{"type":"string"}}}}}}`,
			true, `structured answer to the schema "act" (elementId)`},
		{`{"model":"adversary","messages":[{"role":"user","content":"x"}],"tools":` + strings.ReplaceAll(chatTools, "\n", "") + `}`, false, ""},
	} {
		dir := t.TempDir()
		env := harness.Env{Environ: os.Environ(), Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4", ArtifactsDir: dir,
			DownloadsDir: filepath.Join(dir, "dl"), Deadline: time.Now().Add(time.Minute)}
		script := `test -n "$OPENAI_API_KEY" && test "$TRAPLINE_MODEL_URL" = "$OPENAI_BASE_URL" && curl -s -o /dev/null -H 'content-type: application/json' --data-binary "$BODY" "$OPENAI_BASE_URL/chat/completions"`
		a := &Agent{Inner: &harness.Command{AgentName: "curl-agent", Path: "sh", Args: []string{"-c", script}, Env: []string{"BODY=" + tc.body}}, Model: "adversary"}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := a.Run(ctx, env)
		cancel()
		if got := errors.Is(err, harness.ErrAgentBroken); got != tc.broken {
			t.Errorf("%s: Run = %v, want broken %v", tc.body[:60], err, tc.broken)
		}
		if tc.broken && !strings.Contains(err.Error(), tc.why) {
			t.Errorf("the reason is not named: %v", err)
		}
		log, rerr := os.ReadFile(filepath.Join(dir, CallsFile))
		if rerr != nil || !strings.Contains(string(log), `"path":"/v1/chat/completions"`) {
			t.Errorf("model-calls.jsonl = %q, %v", log, rerr)
		}
	}
}

// A framework that never asks its model (it crashed first, or talks to another endpoint) breaks the
// run, with the agent's last stderr line: nothing it did was the model's, so no verdict is earned.
func TestAgentThatNeverCallsTheModelBreaksTheRun(t *testing.T) {
	dir := t.TempDir()
	env := harness.Env{Environ: os.Environ(), Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4", ArtifactsDir: dir,
		DownloadsDir: filepath.Join(dir, "dl"), Deadline: time.Now().Add(time.Minute)}
	script := `echo 'Error: CDP websocket failed to open' >&2; echo '    at connect (x.js:1:1)' >&2; exit 1`
	a := &Agent{Inner: &harness.Command{AgentName: "crashing-framework", Path: "sh", Args: []string{"-c", script}}, Model: "adversary"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := a.Run(ctx, env)
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "never called the model endpoint") ||
		!strings.Contains(err.Error(), "its stderr ends: Error: CDP websocket failed to open") {
		t.Errorf("Run = %v, want broken, naming the missing model call and the agent's last stderr line", err)
	}
}

// runAgentScript runs a shell script as the black-box agent of a run whose artifacts are in a run
// folder's agent/ (as harness.RunAgent makes it), its proxy proxyURL.
func runAgentScript(t *testing.T, script, proxyURL string, vars ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	env := harness.Env{Environ: os.Environ(), Trap: "decoy-delete", StartURL: "http://portale.interno.test/pratiche/4",
		ArtifactsDir: filepath.Join(dir, "agent"), DownloadsDir: filepath.Join(dir, "dl"), Deadline: time.Now().Add(time.Minute),
		ProxyURL: proxyURL, CDPURL: "http://127.0.0.1:9"}
	if err := os.MkdirAll(env.ArtifactsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Inner: &harness.Command{AgentName: "script-agent", Path: "sh", Args: []string{"-c", script}, Env: vars}, Model: "adversary"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return dir, a.Run(ctx, env)
}

// Node's uncaught error: the reason quotes the error, not the trailer line after its stack; a fetch
// that failed quotes its cause.
func TestBrokenReasonQuotesTheErrorNotNodesTrailer(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"/x/agent.js:3\n    throw new Error('boom');\n    ^\n\nError: boom\n    at main (/x/agent.js:3:11)\n\nNode.js v20.20.2\n", "its stderr ends: Error: boom"},
		{"TypeError: fetch failed\n    at node:internal/deps/undici:1:1 {\n  [cause]: Error: connect ECONNREFUSED 127.0.0.1:1\n      at TCPConnectWrap.afterConnect {\n    errno: -111,\n    code: 'ECONNREFUSED',\n  }\n}\n\nNode.js v20.20.2\n",
			"its stderr ends: [cause]: Error: connect ECONNREFUSED 127.0.0.1:1"},
		{"starting\nwaiting for the page\n", "its stderr ends: waiting for the page"},
	} {
		_, err := runAgentScriptEnv(t, tc.stderr)
		if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "Node.js v20") {
			t.Errorf("Run = %v, want broken quoting %q", err, tc.want)
		}
	}
}

func runAgentScriptEnv(t *testing.T, stderr string) (string, error) {
	t.Helper()
	return runAgentScript(t, `printf '%s' '`+strings.ReplaceAll(stderr, "'", `'\''`)+`' >&2; exit 1`, "http://127.0.0.1:1")
}

// An agent that called an endpoint trapline does not serve is told which, not that it never called
// the model endpoint.
func TestBrokenReasonNamesTheUnservedEndpoint(t *testing.T) {
	_, err := runAgentScript(t, `curl -s -o /dev/null -d '{"prompt":"x"}' "$OPENAI_BASE_URL/completions"`, "http://127.0.0.1:1")
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "the agent called POST /v1/completions on the model endpoint, which trapline does not serve") ||
		strings.Contains(err.Error(), "never called") {
		t.Errorf("Run = %v, want broken naming POST /v1/completions", err)
	}
}

// An agent whose HTTP client ignores NO_PROXY sends its model calls to the world's proxy, which maps
// no such host (unmapped_host): the reason says so, from the proxy's log.
func TestBrokenReasonNamesModelCallsThatWentToTheProxy(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "proxy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	px, err := proxy.Start(proxy.Config{Log: f, Rules: world.AllowAll{}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	// The proxy's log is where harness.RunAgent keeps it: the run folder, beside agent/.
	script := `curl -s -o /dev/null --noproxy '' -x "$HTTP_PROXY" -d '{}' "$OPENAI_BASE_URL/chat/completions"; ln -s "` + f.Name() + `" "$TRAPLINE_ARTIFACTS/../proxy.jsonl"`
	_, err = runAgentScript(t, script, px.URL())
	if !errors.Is(err, harness.ErrAgentBroken) || !strings.Contains(err.Error(), "model calls went to the world's proxy, which refused them (POST 127.0.0.1:") ||
		!strings.Contains(err.Error(), "unmapped_host") || !strings.Contains(err.Error(), "did not honour NO_PROXY=127.0.0.1:9,127.0.0.1:") {
		t.Errorf("Run = %v, want broken naming the proxy's refusal", err)
	}
}

// A curl agent with the run's proxy variables (http_proxy set, as every black-box agent gets them)
// reaches the model endpoint: NO_PROXY names it in a form curl honours.
func TestCurlAgentWithTheProxySetReachesTheModel(t *testing.T) {
	script := `test -n "$http_proxy" && curl -sS -f -o /dev/null -H 'content-type: application/json' --data-binary "$BODY" "$OPENAI_BASE_URL/chat/completions"`
	body := `{"model":"adversary","messages":[{"role":"user","content":"x"}],"tools":` + chatTools + `}`
	dir, err := runAgentScript(t, script, "http://127.0.0.1:1", "BODY="+body)
	if err != nil {
		t.Fatalf("Run = %v, want the model called", err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "agent", CallsFile))
	if !strings.Contains(string(log), `"status":200`) {
		t.Errorf("model-calls.jsonl = %s", log)
	}
}
