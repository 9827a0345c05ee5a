package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	osexec "os/exec"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// Config configures Start.
type Config struct {
	// Command is the program and its arguments, e.g. {"node", "planner.js"}; Command[0] is looked up
	// in PATH.
	Command []string
	// Dir is the working directory; "" is the current one.
	Dir string
	// Env is the process's environment; nil inherits the current one. The process is never given a
	// secret by trapline; pass a reduced Env to keep yours from it.
	Env []string
	// Stderr receives the process's stderr; nil discards it. The last StderrTail bytes are kept anyway
	// and quoted in errors.
	Stderr io.Writer
	// MaxRejections is how many unusable lines in a row are rejected proposals before ErrGaveUp;
	// default 3.
	MaxRejections int
	// MaxLineBytes bounds an answer line; default DefaultMaxLineBytes (64 KiB), at most
	// MaxMaxLineBytes. A longer line is an error naming the limit (the stream cannot be trusted
	// after it), and the process is stopped: memory stays bounded by the limit.
	MaxLineBytes int
	// MaxElements and MaxTextRunes shape the observation text (observe.CompactOptions); 0 means no cap
	// and a 300-rune cap respectively; a negative MaxTextRunes means no limit.
	MaxElements  int
	MaxTextRunes int
	// CloseGrace is how long Close waits for the process to exit after closing its stdin before it
	// kills it; default 2s.
	CloseGrace time.Duration
}

// stderrTail is how many bytes of stderr an error quotes.
const stderrTail = 2048

// ConfigError says which field of a Config is wrong and why.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("exec planner: config %s: %s", e.Field, e.Reason)
}

// The bounds of an answer line (Config.MaxLineBytes).
const (
	// DefaultMaxLineBytes is an answer line's limit when Config.MaxLineBytes is 0.
	DefaultMaxLineBytes = 64 << 10
	// MaxMaxLineBytes is the largest Config.MaxLineBytes accepted.
	MaxMaxLineBytes = 16 << 20
)

func (c Config) withDefaults() (Config, error) {
	if len(c.Command) == 0 || c.Command[0] == "" {
		return c, &ConfigError{Field: "Command", Reason: "missing: the program to run and its arguments"}
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"MaxRejections", &c.MaxRejections}, {"MaxLineBytes", &c.MaxLineBytes}, {"MaxElements", &c.MaxElements}} {
		if *f.v < 0 {
			return c, &ConfigError{Field: f.name, Reason: fmt.Sprintf("negative (%d)", *f.v)}
		}
	}
	if c.CloseGrace < 0 {
		return c, &ConfigError{Field: "CloseGrace", Reason: fmt.Sprintf("negative (%s)", c.CloseGrace)}
	}
	if c.MaxRejections == 0 {
		c.MaxRejections = 3
	}
	if c.MaxLineBytes > MaxMaxLineBytes {
		return c, &ConfigError{Field: "MaxLineBytes", Reason: fmt.Sprintf("%d is over the limit of %d bytes (MaxMaxLineBytes)", c.MaxLineBytes, MaxMaxLineBytes)}
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	switch {
	case c.MaxTextRunes == 0:
		c.MaxTextRunes = 300
	case c.MaxTextRunes < 0:
		c.MaxTextRunes = 0
	}
	if c.CloseGrace == 0 {
		c.CloseGrace = 2 * time.Second
	}
	return c, nil
}

// Planner is a running planner process. It implements planner.Planner; calls are serialised.
type Planner struct {
	cfg   Config
	cmd   *osexec.Cmd
	stdin io.WriteCloser
	lines chan string   // answer lines; closed at EOF
	stop  chan struct{} // closed when no more lines are wanted: the reader discards them
	exit  chan struct{} // closed once the process is reaped
	tail  *tailWriter

	readErr error // set before lines is closed
	waitErr error // set before exit is closed

	mu         sync.Mutex
	step       int
	rejections int
	broken     error
	closeOnce  sync.Once
	closeErr   error
	stopOnce   sync.Once
}

var _ planner.Planner = (*Planner)(nil)

// Start runs the process. ctx bounds its whole life: when ctx ends the process is killed. Call Close
// when done, also after an error from Next.
func Start(ctx context.Context, cfg Config) (*Planner, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cmd := osexec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir, cmd.Env = cfg.Dir, cfg.Env
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second // bounds the stderr copy when a child keeps it open
	tail := &tailWriter{max: stderrTail}
	if cfg.Stderr != nil {
		cmd.Stderr = io.MultiWriter(tail, cfg.Stderr)
	} else {
		cmd.Stderr = tail
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("exec planner: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("exec planner: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("exec planner: start %q: %w", strings.Join(cfg.Command, " "), err)
	}
	p := &Planner{cfg: cfg, cmd: cmd, stdin: stdin, lines: make(chan string, 1),
		stop: make(chan struct{}), exit: make(chan struct{}), tail: tail}
	go p.read(stdout)
	return p, nil
}

// read forwards answer lines until EOF, then reaps the process (Wait only after all reads).
func (p *Planner) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	// The cap of the first buffer counts as a limit too: keep it at or under MaxLineBytes.
	sc.Buffer(make([]byte, 0, min(4096, p.cfg.MaxLineBytes)), p.cfg.MaxLineBytes)
	for sc.Scan() {
		select {
		case p.lines <- sc.Text():
		case <-p.stop:
		}
	}
	p.readErr = sc.Err()
	if errors.Is(p.readErr, bufio.ErrTooLong) {
		p.readErr = fmt.Errorf("an answer line is over the limit of %d bytes (MaxLineBytes): %w", p.cfg.MaxLineBytes, p.readErr)
		_ = killGroup(p.cmd) // the stream cannot be resynchronised
	}
	close(p.lines)
	p.waitErr = p.cmd.Wait()
	close(p.exit)
}

// Next writes one observation message and reads one action line.
func (p *Planner) Next(ctx context.Context, in planner.Input) (action.Action, error) {
	if in.Observation == nil {
		return action.Action{}, errors.New("exec planner: no observation")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken != nil {
		return action.Action{}, p.broken
	}
	p.step++
	// A line the process wrote out of turn would be taken for this answer: drop it and say so.
	for dropped := 0; ; dropped++ {
		select {
		case _, ok := <-p.lines:
			if ok {
				continue
			}
			return action.Action{}, p.fail(p.exited())
		default:
		}
		if dropped > 0 {
			in.Feedback = strings.TrimSpace(in.Feedback + fmt.Sprintf(" (%d line(s) you wrote after your previous answer were ignored: write exactly one line per message)", dropped))
		}
		break
	}
	msg, err := message(p.step, in, observe.CompactOptions{MaxElements: p.cfg.MaxElements, IncludeText: true, MaxTextRunes: p.cfg.MaxTextRunes})
	if err != nil {
		return action.Action{}, fmt.Errorf("exec planner: compact the observation: %w", err)
	}
	line, err := json.Marshal(msg)
	if err != nil {
		return action.Action{}, fmt.Errorf("exec planner: encode the message: %w", err)
	}
	wrote := make(chan error, 1)
	go func() { _, err := p.stdin.Write(append(line, '\n')); wrote <- err }()

	var answer string
	for answer == "" {
		select {
		case <-ctx.Done():
			p.halt()
			<-p.exit
			return action.Action{}, p.fail(fmt.Errorf("exec planner: no answer to step %d: %w; the process was stopped (a late answer could not be told from the next one)", p.step, ctx.Err()))
		case err := <-wrote:
			if err != nil {
				return action.Action{}, p.fail(fmt.Errorf("%w (writing the message: %v)", p.exited(), err))
			}
			wrote = nil // written; keep waiting for the answer
		case l, ok := <-p.lines:
			if !ok {
				return action.Action{}, p.fail(p.exited())
			}
			answer = l
			if strings.TrimSpace(l) == "" {
				answer = " "
			}
		}
	}
	a, rej := p.decide(answer, in.Observation)
	if rej == nil {
		p.rejections = 0
		return a, nil
	}
	p.rejections++
	if p.rejections > p.cfg.MaxRejections {
		return action.Action{}, fmt.Errorf("%w: %d unusable lines in a row, the last: %s", planner.ErrGaveUp, p.rejections, rej.Reason)
	}
	return action.Action{}, rej
}

// decide parses one answer line strictly. Its ref is passed on as it is: the loop alone resolves refs.
func (p *Planner) decide(line string, obs *observe.Observation) (action.Action, *planner.RejectedError) {
	out := line
	if r := []rune(out); len(r) > 300 {
		out = string(r[:300]) + "…"
	}
	if strings.TrimSpace(line) == "" {
		return action.Action{}, &planner.RejectedError{Reason: "empty line; write one JSON action per line", Output: out}
	}
	a, err := action.ParseOn([]byte(line), obs.URL)
	if err != nil {
		return action.Action{}, &planner.RejectedError{Reason: err.Error(), Output: out}
	}
	return a, nil
}

// exited waits for the process (which closed its stdout) and describes how it ended.
func (p *Planner) exited() error {
	select {
	case <-p.exit:
	case <-time.After(p.cfg.CloseGrace):
		p.halt()
		<-p.exit
	}
	why := "closed its stdout"
	switch {
	case p.readErr != nil:
		why = "answer stream broken: " + p.readErr.Error()
	case p.waitErr != nil:
		why = "exited: " + p.waitErr.Error()
	case p.cmd.ProcessState != nil:
		why = "exited: " + p.cmd.ProcessState.String()
	}
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		why += "; stderr: " + t
	}
	return fmt.Errorf("exec planner: the process %s", why)
}

// halt stops reading answers and kills the process group.
func (p *Planner) halt() {
	p.stopOnce.Do(func() { close(p.stop) })
	_ = killGroup(p.cmd)
}

// fail marks the planner unusable.
func (p *Planner) fail(err error) error {
	p.broken = err
	return err
}

// Close ends the process: it closes stdin, waits up to CloseGrace for the process to exit, then kills
// its process group, and reaps it. It returns the exit error of a process that ended badly on its own.
// Close is idempotent.
func (p *Planner) Close() error {
	p.closeOnce.Do(func() {
		p.stopOnce.Do(func() { close(p.stop) })
		_ = p.stdin.Close()
		select {
		case <-p.exit:
			if p.waitErr != nil && p.broken == nil {
				p.closeErr = fmt.Errorf("exec planner: the process exited: %w", p.waitErr)
			}
		case <-time.After(p.cfg.CloseGrace):
			p.halt()
			<-p.exit
		}
	})
	return p.closeErr
}

// PID is the process id, for logs.
func (p *Planner) PID() int { return p.cmd.Process.Pid }

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
