package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/internal/proctree"
	"github.com/trapline/trapline/results"
)

// Environment variables Command sets for the agent (besides HTTP_PROXY, HTTPS_PROXY and NO_PROXY).
const (
	EnvStartURL  = "TRAPLINE_START_URL"
	EnvTask      = "TRAPLINE_TASK"
	EnvCDPURL    = "TRAPLINE_CDP_URL"
	EnvProxyURL  = "TRAPLINE_PROXY_URL"
	EnvArtifacts = "TRAPLINE_ARTIFACTS"
	EnvDownloads = "TRAPLINE_DOWNLOADS"
	EnvPassword  = "TRAPLINE_PASSWORD"
	EnvDeadline  = "TRAPLINE_DEADLINE"
	EnvTrap      = "TRAPLINE_TRAP"
	EnvCA        = "TRAPLINE_CA"
)

// ErrNoEnviron is returned when a child process (an agent under test, a state probe or reset
// command) is about to start and the caller gave no environment (Options.Environ, Env.Environ nil):
// nil is never taken as an empty one.
var ErrNoEnviron = errors.New("harness: Options.Environ is nil: pass os.Environ() (or []string{} for an empty environment)")

// maxOutput bounds what Command keeps of each of the agent's output streams.
const maxOutput = 4 << 20

// Command is an Agent that runs an external program (a Python agent, a Node script, an MCP client
// driven by a model) in its own process group. It gets the run through its environment:
//
//	TRAPLINE_START_URL  the page to start on
//	TRAPLINE_TASK       what to do
//	TRAPLINE_CDP_URL    the DevTools endpoint of the browser to drive (http://127.0.0.1:PORT)
//	TRAPLINE_PROXY_URL, HTTP_PROXY, HTTPS_PROXY (and lower-case)
//	                    the world's proxy, for a browser or HTTP client of the agent's own
//	NO_PROXY, no_proxy  the DevTools endpoint and NoProxy's endpoints (each as host:port and as the bare
//	                    host: NoProxy), so HTTP clients reach them directly
//	TRAPLINE_ARTIFACTS  a folder for the agent's own logs
//	TRAPLINE_DOWNLOADS  the workstation's download folder (also the browser's)
//	TRAPLINE_PASSWORD   the test account's password, only in the traps that hand it over
//	TRAPLINE_DEADLINE   when the run is cut off (RFC 3339)
//	TRAPLINE_TRAP       the trap's id, for the agent's own logs
//	TRAPLINE_CA         the PEM file of the world's CA, which the proxy intercepts HTTPS with (the
//	                    browser at TRAPLINE_CDP_URL already trusts it, alone); for an HTTP client or
//	                    browser of the agent's own (curl --cacert, NODE_EXTRA_CA_CERTS), never the
//	                    system's trust store
//
// Its stdout and stderr are saved to stdout.log and stderr.log in the artifacts folder, with the
// password redacted. When the deadline passes the whole process group is killed and Run returns the
// context's error; the harness records the timeout, it does not fail.
type Command struct {
	// AgentName is the agent's Name; required (letters, digits, dashes).
	AgentName string
	// Path is the program; looked up on PATH when it has no slash.
	Path string
	// Args are its arguments.
	Args []string
	// Dir is its working directory; default the current one.
	Dir string
	// Env adds variables (KEY=VALUE) to the inherited environment (the run's Env.Environ, without
	// its proxy variables), before trapline's own.
	Env []string
	// KillGrace is how long the process group gets between SIGTERM and SIGKILL at the deadline;
	// default 2s.
	KillGrace time.Duration
	// NoProxy are endpoints (URLs or host:port) besides the DevTools endpoint that the agent's HTTP
	// clients reach directly, not through the world's proxy: the model endpoint of a run whose model
	// is trapline's (NO_PROXY, harness.NoProxy).
	NoProxy []string
}

// Name returns c.AgentName.
func (c *Command) Name() string { return c.AgentName }

// Run runs the command once and waits for it, or kills its process group at ctx's end.
func (c *Command) Run(ctx context.Context, env Env) error {
	if env.Environ == nil {
		return fmt.Errorf("%w: %s: %w", ErrAgentNotStarted, c.Path, ErrNoEnviron)
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(WithoutProxyVars(env.Environ), c.Env...), c.environment(env)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Whatever the agent starts, in any group or session, is followed and ends with the run (issue
	// 49.12: a Chromium an MCP server launched in a group of its own outlived its run).
	watch, err := proctree.NewWatch()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAgentNotStarted, c.Path, err)
	}
	cmd.Env = append(cmd.Env, watch.Env())
	// A grandchild that keeps the pipes open must not hold Wait forever once the group is killed.
	cmd.WaitDelay = 5 * time.Second
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAgentNotStarted, c.Path, err)
	}
	pgid := cmd.Process.Pid
	watch.Track(pgid)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		grace := c.KillGrace
		if grace == 0 {
			grace = 2 * time.Second
		}
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(grace)
		select {
		case <-waited:
		case <-t.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-waited
		}
		t.Stop()
		err = ctx.Err()
	}
	// Whatever the agent left running (a browser of its own, a helper, in its group or not) ends with
	// it, and the run says so.
	ended := watch.End()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	red := evidence.NewRedactor(env.Password)
	if env.Password == "" {
		red = nil
	}
	writeErr := errors.Join(
		proctree.WriteEnded(filepath.Join(env.ArtifactsDir, results.KilledFile), ended, evidence.FileMode),
		os.WriteFile(filepath.Join(env.ArtifactsDir, results.StdoutFile), stdout.redacted(red), evidence.FileMode),
		os.WriteFile(filepath.Join(env.ArtifactsDir, results.StderrFile), stderr.redacted(red), evidence.FileMode))
	if writeErr != nil {
		return errors.Join(err, fmt.Errorf("harness: save agent output: %w", writeErr))
	}
	return err
}

// environment is trapline's part of the agent's environment.
func (c *Command) environment(env Env) []string {
	vars := []string{
		EnvStartURL + "=" + env.StartURL,
		EnvTask + "=" + env.Task,
		EnvCDPURL + "=" + env.CDPURL,
		EnvProxyURL + "=" + env.ProxyURL,
		EnvArtifacts + "=" + env.ArtifactsDir,
		EnvDownloads + "=" + env.DownloadsDir,
		EnvDeadline + "=" + env.Deadline.UTC().Format(time.RFC3339),
		EnvTrap + "=" + env.Trap,
	}
	if env.CAFile != "" {
		vars = append(vars, EnvCA+"="+env.CAFile)
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		vars = append(vars, k+"="+env.ProxyURL)
	}
	noProxy := NoProxy(append([]string{env.CDPURL}, c.NoProxy...)...)
	vars = append(vars, "NO_PROXY="+noProxy, "no_proxy="+noProxy)
	if env.Password != "" {
		vars = append(vars, EnvPassword+"="+env.Password)
	}
	return vars
}

// WithoutProxyVars drops inherited proxy settings, which could route the agent around the world.
func WithoutProxyVars(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p) // a short write would make the child's writes fail; the rest is counted, not kept
	room := c.max - c.buf.Len()
	if room < len(p) {
		c.dropped += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	c.buf.Write(p)
	return n, nil
}

func (c *capped) redacted(r *evidence.Redactor) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := r.Bytes(c.buf.Bytes())
	if c.dropped > 0 {
		b = append(b, fmt.Sprintf("\n[trapline: %d more bytes not kept]\n", c.dropped)...)
	}
	return b
}
