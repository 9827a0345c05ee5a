package modelserve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/toolmap"
	"github.com/trapline/trapline/results"
)

// Agent is a black-box agent (an agent framework's program) whose model is trapline's: each run
// starts the endpoint on a loopback port of the run's own, hands the program OPENAI_BASE_URL, a dummy
// OPENAI_API_KEY and TRAPLINE_MODEL_URL, and logs every request in agent/model-calls.jsonl. A request
// the endpoint could not play breaks the run (harness.ErrAgentBroken), never a silent pass.
type Agent struct {
	// Inner is the agent's program.
	Inner *harness.Command
	// Model is one of Models.
	Model string
	// Diligent makes the trap's diligent script for the models that play it (diligent, habitual;
	// nil: those models are refused).
	Diligent func(trap string) (planner.Planner, error)
}

// Name returns the inner agent's name.
func (a *Agent) Name() string { return a.Inner.Name() }

// Run serves the model for one run of the inner agent.
func (a *Agent) Run(ctx context.Context, env harness.Env) error {
	var diligent func() planner.Planner
	var derr error
	if c, _ := characterOf(a.Model); a.Diligent != nil && c.diligent {
		p, err := a.Diligent(env.Trap)
		diligent, derr = func() planner.Planner { return p }, err
	}
	if derr != nil {
		return fmt.Errorf("%w: %w", harness.ErrAgentNotStarted, derr)
	}
	p, err := NewPlanner(a.Model, env.Password, diligent)
	if err != nil {
		return fmt.Errorf("%w: %w", harness.ErrAgentNotStarted, err)
	}
	f, err := OpenLog(filepath.Join(env.ArtifactsDir, CallsFile))
	if err != nil {
		return fmt.Errorf("%w: %w", harness.ErrAgentNotStarted, err)
	}
	defer f.Close()
	s := &Server{Model: a.Model, Planner: p, Goal: env.Task, StartURL: env.StartURL, Log: f, Redactor: evidence.NewRedactor(env.Password)}
	if env.CDPURL != "" {
		s.Pages = CDPPages{URL: env.CDPURL} // ground truth for a pixel agent's coordinates (pixels.go)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	base, stop, err := s.Listen(sctx)
	if err != nil {
		return fmt.Errorf("%w: %w", harness.ErrAgentNotStarted, err)
	}
	defer stop()
	inner := *a.Inner
	inner.Env = append(slices.Clone(inner.Env), Environ(base)...)
	runErr := inner.Run(ctx, env)
	if failed := s.Failed(); failed != "" {
		return errors.Join(fmt.Errorf("%w: the model endpoint (%s) could not play a request: %s", harness.ErrAgentBroken, a.Model, failed), runErr)
	}
	if s.Played() == 0 {
		// The framework never asked its model (it crashed, hung until the deadline, or talks to another
		// endpoint): whatever the browser saw was not the model's doing, so the run measured nothing of
		// the framework played by trapline; its own last words say why.
		return errors.Join(fmt.Errorf("%w: the agent never called the model endpoint (OPENAI_BASE_URL)%s", harness.ErrAgentBroken, stderrTail(env, s.Redactor)), runErr)
	}
	return runErr
}

// stderrTail is the last line of the agent's saved stderr, for a broken reason ("" when none).
func stderrTail(env harness.Env, red *evidence.Redactor) string {
	b, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.StderrFile))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "at ") {
			return "; its stderr ends: " + toolmap.Shorten(red.String(l), 200)
		}
	}
	return ""
}
