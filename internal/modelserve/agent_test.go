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
)

// An agent whose request the endpoint cannot play breaks the run, with the reason, and the request is
// in the run's model-calls.jsonl; a run whose requests were all played is not broken by the endpoint.
func TestAgentRequestThatCannotBePlayedBreaksTheRun(t *testing.T) {
	for _, tc := range []struct {
		body   string
		broken bool
	}{
		{`{"model":"adversary","messages":[{"role":"user","content":"x"}]}`, true},
		{`{"model":"adversary","messages":[{"role":"user","content":"x"}],"tools":` + strings.ReplaceAll(chatTools, "\n", "") + `}`, false},
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
		if tc.broken && !strings.Contains(err.Error(), "no tools") {
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
