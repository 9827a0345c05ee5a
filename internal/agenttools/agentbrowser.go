package agenttools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/proctree"
	"github.com/trapline/trapline/internal/toolmap"
	"github.com/trapline/trapline/results"
)

// VersionFile holds the tool's own version line (agent-browser --version, the MCP server's
// serverInfo), in the artifacts folder.
const VersionFile = "tool-version.txt"

// AgentBrowser is a harness.Agent that drives the agent-browser CLI as a model does: one invocation
// per step (snapshot, click @e3, fill @e2 text, open URL), every one with the flags of Command (the
// tool's own fence: --allowed-domains, --action-policy, --confirm-actions, --content-boundaries) plus
// trapline's: --json, a session and a namespace of the run's own (its daemon and sockets are the run's,
// closed at the end), and --proxy with the world's proxy unless Command connects to trapline's browser
// with --cdp. Chromium is /usr/bin/chromium (AGENT_BROWSER_EXECUTABLE_PATH) with --no-sandbox as root,
// unless Command says otherwise.
//
// A confirmation the tool asks for ("confirmation_required", with an id) is answered the way the
// worst-case model answers it: by running `agent-browser confirm <id>` itself, a channel the model
// reaches like any other command. Only --confirm-interactive, which needs a TTY the model has not,
// is a confirmation the model cannot give (it auto-denies without one).
type AgentBrowser struct {
	// AgentName is the agent's name in reports; required.
	AgentName string
	// Command is the CLI and the flags every invocation gets.
	Command []string
	// Drive is the model, the CLI's environment and the run's bounds. Its CallTimeout bounds every
	// invocation; its StartTimeout the first, which launches the daemon and its Chromium.
	Drive
}

// Name returns a.AgentName.
func (a *AgentBrowser) Name() string { return a.AgentName }

// Run drives the CLI from env.StartURL, then closes the run's sessions.
func (a *AgentBrowser) Run(ctx context.Context, env harness.Env) (err error) {
	if len(a.Command) == 0 {
		return fmt.Errorf("%w: agenttools: agent-browser needs the CLI's command", harness.ErrAgentNotStarted)
	}
	args, err := expandArgs(a.Command, env)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", harness.ErrAgentNotStarted, a.AgentName, err)
	}
	red := evidence.NewRedactor(env.Password)
	stderr := &tailBuffer{max: maxToolOutput}
	defer func() {
		if serr := stderr.save(filepath.Join(env.ArtifactsDir, StderrFile), red); serr != nil {
			err = errors.Join(err, fmt.Errorf("agenttools: save the CLI's stderr: %w", serr))
		}
	}()
	// A short socket folder of the run's own: Unix socket paths are limited to 108 bytes (agent-browser
	// allows 103), so a long TMPDIR (a CI's or a test's work folder) is not used for it.
	sockets, err := os.MkdirTemp(socketBase(), "trapline-ab-")
	if err != nil {
		return fmt.Errorf("%w: agenttools: socket folder: %w", harness.ErrAgentNotStarted, err)
	}
	defer os.RemoveAll(sockets)
	id := filepath.Base(sockets)[len("trapline-ab-"):]
	// The CLI runs in the user's folder (a relative path on its command line is theirs, as typed); its
	// daemon's files are in the socket folder, the files it is asked to write are named in full.
	cli := &abCLI{path: args[0], env: env, stderr: stderr,
		flags: append(slices.Clone(args[1:]), "--json", "--namespace", "trapline"+id, "--session", "run"+id)}
	if !slices.Contains(args, "--cdp") && !slices.Contains(args, "--proxy") {
		cli.flags = append(cli.flags, "--proxy", env.ProxyURL)
	}
	cli.environ, err = toolEnviron(env, append([]string{"AGENT_BROWSER_SOCKET_DIR=" + sockets, "AGENT_BROWSER_NO_VERSION_CHECK=1",
		"AGENT_BROWSER_DOWNLOAD_PATH=" + env.DownloadsDir, "AGENT_BROWSER_IDLE_TIMEOUT_MS=300000"}, defaultBrowserEnv(args, env.Environ)...))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", harness.ErrAgentNotStarted, a.AgentName, err)
	}
	// Every invocation, its daemon and the daemon's Chromium carry the run's token: what is left of
	// them after close and killDaemons ends with the run, and the run says so (issue 49.12).
	watch, err := proctree.NewWatch()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", harness.ErrAgentNotStarted, a.AgentName, err)
	}
	cli.environ = append(append(cli.environ, a.Env...), watch.Env())
	timeout := a.callTimeout()
	broken := func(sentinel error) func(error) error {
		return func(e error) error {
			return fmt.Errorf("%w: %s: %w; stderr (tail): %s", sentinel, a.AgentName, e, stderr.Tail(red))
		}
	}
	vctx, cancel := context.WithTimeout(ctx, timeout)
	version, verr := cli.plain(vctx, "--version")
	cancel()
	if verr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return broken(harness.ErrAgentNotStarted)(fmt.Errorf("%s --version: %w", cli.path, verr))
	}
	_ = os.WriteFile(filepath.Join(env.ArtifactsDir, VersionFile), []byte(version+"\n"), 0o644)
	defer func() {
		// The daemon outlives each invocation: close every session of the run's namespace, on a fresh
		// context (the run's may have ended), then end whatever is left in the socket folder's daemon.
		cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, _ = cli.invoke(cctx, "close", "--all")
		killDaemons(sockets)
		if werr := proctree.WriteEnded(filepath.Join(env.ArtifactsDir, results.KilledFile), watch.End(), 0o644); werr != nil {
			err = errors.Join(err, fmt.Errorf("agenttools: record what the run had to kill: %w", werr))
		}
	}()
	d, err := a.driver(cli, env, broken(harness.ErrAgentBroken))
	if err != nil {
		return err
	}
	defer d.close()
	return d.run(ctx)
}

// socketBase is the folder for the socket folder: the temporary folder, or /tmp when that path is too
// long for agent-browser's socket paths (its own folder, the namespace and the session name follow).
func socketBase() string {
	if dir := os.TempDir(); len(dir) <= maxSocketBase {
		return dir
	}
	return "/tmp"
}

// maxSocketBase leaves room below agent-browser's 103-byte limit for the rest of a socket path (about
// 76 bytes: /trapline-ab-NNNNNNNNNN/ and the daemon's own name for the namespace and the session).
// A trapline run's own temporary folder (/tmp/trapline-run-PID-N, about 34 bytes) is already too long.
const maxSocketBase = 24

// defaultBrowserEnv points agent-browser at Debian's Chromium, with --no-sandbox as root, unless the
// command chose a browser or arguments itself, on its command line or in environ (the environment it
// inherits).
func defaultBrowserEnv(args, environ []string) []string {
	chosen := func(key string) bool {
		return slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, key+"=") && len(kv) > len(key)+1 })
	}
	var out []string
	if !slices.Contains(args, "--executable-path") && !chosen("AGENT_BROWSER_EXECUTABLE_PATH") {
		if _, err := os.Stat("/usr/bin/chromium"); err == nil {
			out = append(out, "AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium")
		}
	}
	if !slices.Contains(args, "--args") && !chosen("AGENT_BROWSER_ARGS") && os.Geteuid() == 0 {
		out = append(out, "AGENT_BROWSER_ARGS=--no-sandbox")
	}
	return out
}

// killDaemons ends the daemons whose pid files are in the run's socket folder.
func killDaemons(dir string) {
	_ = filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, ".pid") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		var pid int
		if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &pid); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return nil
	})
}

// abCLI is the session of one run with agent-browser.
type abCLI struct {
	path    string
	flags   []string
	environ []string
	dir     string
	env     harness.Env
	stderr  *tailBuffer
}

// abAnswer is agent-browser's --json answer.
type abAnswer struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *string         `json:"error"`
}

// plain runs the CLI with args only (no run flags) and returns its trimmed stdout.
func (c *abCLI) plain(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Env, cmd.Dir, cmd.Stderr = c.environ, c.dir, c.stderr
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// invoke runs one command with the run's flags and decodes its JSON answer. A process that cannot run
// or prints no JSON is an error (a broken tool); an answer with success false is a refusal.
func (c *abCLI) invoke(ctx context.Context, args ...string) (toolCall, error) {
	all := append(slices.Clone(c.flags), args...)
	call := toolCall{Tool: "agent-browser " + strings.Join(args, " "), Args: args}
	cmd := exec.CommandContext(ctx, c.path, all...)
	cmd.Env, cmd.Dir, cmd.Stderr = c.environ, c.dir, c.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	t0 := time.Now()
	runErr := cmd.Run()
	call.Millis = time.Since(t0).Milliseconds()
	if ctx.Err() != nil {
		return call, fmt.Errorf("%s: %w", call.Tool, ctx.Err())
	}
	var ans abAnswer
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &ans); err != nil {
		return call, fmt.Errorf("%s: no JSON answer (%v; exit: %v): %q", call.Tool, err, runErr, shorten(stdout.String(), 300))
	}
	if !ans.Success {
		if ans.Error != nil {
			call.Answer = *ans.Error
		}
		errorOrRefusal(&call)
		return call, nil
	}
	call.Answer = string(ans.Data)
	return call, nil
}

// abDialog is agent-browser's answer while a JavaScript dialog blocks the page; it offers
// `dialog accept`, which the worst-case model runs.
var abDialog = regexp.MustCompile("dialog is blocking the page.*`dialog accept`")

func (c *abCLI) observe(ctx context.Context) (string, string, []toolCall, error) {
	var calls []toolCall
	call, err := c.invoke(ctx, "snapshot")
	for range 3 {
		if err != nil || !call.failed() || !abDialog.MatchString(call.Answer) {
			break
		}
		acc, aerr := c.invoke(ctx, "dialog", "accept")
		acc.Why = "the tool offered `dialog accept` for a dialog blocking the page: the worst-case model accepts"
		calls = append(calls, acc)
		if aerr != nil {
			return "", "", calls, aerr
		}
		call, err = c.invoke(ctx, "snapshot")
	}
	if err != nil {
		return "", "", calls, err
	}
	if call.failed() {
		return "", "", calls, fmt.Errorf("snapshot refused: %s", shorten(call.Answer, maxAnswer))
	}
	var data struct {
		Snapshot *string `json:"snapshot"`
		Origin   string  `json:"origin"`
	}
	if err := json.Unmarshal([]byte(call.Answer), &data); err != nil || data.Snapshot == nil {
		return "", "", calls, fmt.Errorf("snapshot: no data.snapshot in %q", shorten(call.Answer, 300))
	}
	return data.Origin, normalizeAB(*data.Snapshot), calls, nil
}

func (c *abCLI) offers(k action.Kind) bool {
	return slices.Contains([]action.Kind{action.Goto, action.Click, action.Fill, action.Select, action.Press, action.Scroll, action.Read}, k)
}

func (c *abCLI) do(ctx context.Context, a action.Action, n observe.Node) (toolCall, error) {
	ref := "@" + n.RawRef
	var args []string
	switch a.Kind {
	case action.Goto:
		args = []string{"open", a.URL}
	case action.Click:
		args = []string{"click", ref}
	case action.Fill:
		args = []string{"fill", ref, a.Value}
	case action.Select:
		args = []string{"select", ref, a.Value}
	case action.Press:
		args = []string{"press", a.Key}
	case action.Scroll:
		args = []string{"scroll", a.Dir}
	case action.Read:
		args = []string{"snapshot"}
	default:
		return toolCall{}, fmt.Errorf("the adapter has no call for %s", a.Kind)
	}
	call, err := c.invoke(ctx, args...)
	if err != nil || call.failed() {
		return call, err
	}
	var pending struct {
		Required bool   `json:"confirmation_required"`
		ID       string `json:"confirmation_id"`
	}
	if json.Unmarshal([]byte(call.Answer), &pending) == nil && pending.Required && pending.ID != "" {
		// The tool holds the action until someone runs `agent-browser confirm <id>`: the model can.
		conf, err := c.invoke(ctx, "confirm", pending.ID)
		conf.Why = fmt.Sprintf("%s asked for confirmation %s: the worst-case model confirms it itself", call.Tool, pending.ID)
		conf.Answer = "held for confirmation " + pending.ID + ", then confirmed by the model: " + conf.Answer
		conf.Millis += call.Millis
		return conf, err
	}
	return call, nil
}

// normalizeAB is toolmap.NormalizeRefs (agent-browser's snapshot in Playwright's layout).
func normalizeAB(raw string) string { return toolmap.NormalizeRefs(raw) }
