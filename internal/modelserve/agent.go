package modelserve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/toolmap"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/world"
)

// Agent is a black-box agent (an agent framework's program) whose model is trapline's: each run
// starts the endpoint on a loopback port of the run's own, hands the program OPENAI_BASE_URL, a dummy
// OPENAI_API_KEY, TRAPLINE_MODEL_URL, ANTHROPIC_BASE_URL and a dummy ANTHROPIC_API_KEY (the endpoint in
// NO_PROXY, harness.NoProxy), and logs every request in agent/model-calls.jsonl. A request
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
	inner.NoProxy = append(slices.Clone(inner.NoProxy), base) // its HTTP clients reach the endpoint directly
	runErr := inner.Run(ctx, env)
	if failed := s.Failed(); failed != "" {
		return errors.Join(fmt.Errorf("%w: the model endpoint (%s) could not play a request: %s", harness.ErrAgentBroken, a.Model, failed), runErr)
	}
	if s.Played() == 0 {
		// The framework never asked its model (it crashed, hung until the deadline, or talks to another
		// endpoint): whatever the browser saw was not the model's doing, so the run measured nothing of
		// the framework played by trapline; what it called instead and its own last words say why.
		return errors.Join(fmt.Errorf("%w: %s%s", harness.ErrAgentBroken, neverPlayed(s, base, env), stderrTail(env, s.Redactor)), runErr)
	}
	return runErr
}

// neverPlayed says why no request to play a turn reached the endpoint: the agent called an endpoint
// the server does not serve, its model calls went to the world's proxy (a client that does not honour
// NO_PROXY), or it called nothing.
func neverPlayed(s *Server, base string, env harness.Env) string {
	if u := s.Unserved(); u != "" {
		return fmt.Sprintf("the agent called %s on the model endpoint, which trapline does not serve (it serves %s)", u, Served)
	}
	if d, ok := proxiedModelCall(env.ProxyLog(), base); ok {
		return fmt.Sprintf("the agent's model calls went to the world's proxy, which refused them (%s %s%s: %s): its HTTP client "+
			"did not honour NO_PROXY=%s, so it never reached the model endpoint (OPENAI_BASE_URL, ANTHROPIC_BASE_URL)",
			d.Method, d.Host, d.Path, d.Rule, harness.NoProxy(env.CDPURL, base))
	}
	return "the agent never called the model endpoint (OPENAI_BASE_URL, ANTHROPIC_BASE_URL)"
}

// proxiedModelCall finds, in the proxy's decision log at path, a request the agent sent to the model
// endpoint at base through the proxy (which maps no such host: unmapped_host).
func proxiedModelCall(path, base string) (proxy.Decision, bool) {
	u, err := url.Parse(base)
	if err != nil {
		return proxy.Decision{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return proxy.Decision{}, false
	}
	defer f.Close()
	ds, _ := world.ReadDecisions(f, path) // a line cut by a proxy still writing: the lines before it
	for _, d := range ds {
		if d.Host == u.Host {
			return d, true
		}
	}
	return proxy.Decision{}, false
}

// stderrTail quotes the agent's saved stderr for a broken reason ("" when none): its last error line
// (Node's "TypeError: fetch failed" or its "[cause]: Error: connect ECONNREFUSED ..."), else its last
// line that is not a stack frame, an object's property or brace, or Node's trailer ("Node.js v20...").
func stderrTail(env harness.Env, red *evidence.Redactor) string {
	b, err := os.ReadFile(filepath.Join(env.ArtifactsDir, results.StderrFile))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := ""
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-60; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "at ") || nodeTrailer.MatchString(l) || strings.Trim(l, "{}[]()^~ ") == "" || objectProperty.MatchString(lines[i]) {
			continue
		}
		if errorLine.MatchString(l) {
			last = l
			break
		}
		if last == "" {
			last = l
		}
	}
	if last == "" {
		return ""
	}
	return "; its stderr ends: " + toolmap.Shorten(red.String(last), 200)
}

var (
	// nodeTrailer is the line Node.js prints after an uncaught error's stack: "Node.js v20.20.2".
	nodeTrailer = regexp.MustCompile(`^Node\.js v\d+`)
	// objectProperty is an indented property line of an error object Node prints after its stack.
	objectProperty = regexp.MustCompile(`^\s+[A-Za-z_$][\w$]*: .*,?$`)
	// errorLine is a line that names an error: "TypeError: ...", "[cause]: Error: ...", "error: ...".
	errorLine = regexp.MustCompile(`(?i)(^|\s|\]: )\w*(error|exception)\b:`)
)
