package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/trapline/trapline/traps"
)

// maxProbeOutput bounds a probe command's standard output; more is an error, not a truncated state.
const maxProbeOutput = 8 << 20

// probeArgv is the command that reads trap's state: Options.ProbeCommand (trapline run --probe-cmd)
// when set, else the probe's own command; nil means the probe GETs its path.
func probeArgv(o Options, trap traps.Trap) []string {
	if len(o.ProbeCommand) > 0 {
		return o.ProbeCommand
	}
	return trap.Probe.Command
}

// probeCommand runs argv (no shell) and counts the state its standard output holds. A pack's own
// probe command runs from the trap's pack folder (its relative paths are the pack's); a command the
// user gave (Options.ProbeCommand, --probe-cmd) runs in the folder trapline was started from. The command sees TRAPLINE_TRAP (the trap's id),
// TRAPLINE_PROBE_PHASE ("before" or "after") and, when an upstream serves the trap's start host,
// TRAPLINE_UPSTREAM_URL (where the app answers, e.g. the random port of --upstream-image) besides the
// harness's environment. A start failure, a
// non-zero exit, a timeout or output that is not the JSON expected is an error naming the command:
// the state is unknown then, never unchanged.
func probeCommand(ctx context.Context, o Options, argv []string, trap traps.Trap, phase string) (int, error) {
	dir := ""
	if len(o.ProbeCommand) == 0 {
		dir = packDir(trap)
	}
	name := "probe command " + strings.Join(argv, " ")
	env, err := trapEnv(o, trap)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	env = append(env, "TRAPLINE_PROBE_PHASE="+phase)
	out, err := runCommand(ctx, argv, dir, env, name)
	if err != nil {
		return 0, err
	}
	return countState(out, trap.Probe.Count, name)
}

// packDir is the folder a pack trap was loaded from, "" for a Go trap or an embedded pack.
func packDir(trap traps.Trap) string {
	if trap.Pack != nil && trap.Pack.Origin != "" {
		if fi, err := os.Stat(trap.Pack.Origin); err == nil && fi.IsDir() {
			return trap.Pack.Origin
		}
	}
	return ""
}

// trapEnv is what a probe or reset command sees: o.Environ, then TRAPLINE_TRAP, and
// TRAPLINE_UPSTREAM_URL (the app of the trap's start host) and TRAPLINE_UPSTREAM_<NAME>_URL for every
// upstream (NAME its host name in upper case, every character not a letter or digit an underscore:
// TRAPLINE_UPSTREAM_PORTALE_EXAMPLE_TEST_URL).
// A nil o.Environ is ErrNoEnviron.
func trapEnv(o Options, trap traps.Trap) ([]string, error) {
	if o.Environ == nil {
		return nil, ErrNoEnviron
	}
	env := append(slices.Clip(o.Environ), "TRAPLINE_TRAP="+trap.ID)
	for _, u := range o.Upstreams {
		url := strings.TrimSuffix(u.URL, "/")
		if u.Host == trap.StartHost {
			env = append(env, "TRAPLINE_UPSTREAM_URL="+url)
		}
		env = append(env, "TRAPLINE_UPSTREAM_"+envName(u.Host)+"_URL="+url)
	}
	return env, nil
}

// envName is a host name as an environment variable's part: upper case, anything else an underscore.
func envName(host string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, host)
}

// runCommand runs argv (no shell) in dir ("" the current folder) with env, within probeTimeout, and
// returns its standard output (at most maxProbeOutput bytes). A start failure, a non-zero exit (with
// the end of its error output), a timeout or too much output is an error naming the command (name).
func runCommand(ctx context.Context, argv []string, dir string, env []string, name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var stdout limitedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = probeTimeout
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: no answer within %s: %w", name, probeTimeout, ctx.Err())
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s: exit %d: %s", name, ee.ExitCode(), tail(stderr.String()))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if stdout.over {
		return nil, fmt.Errorf("%s: more than %d bytes of output", name, maxProbeOutput)
	}
	return stdout.Bytes(), nil
}

// limitedBuffer keeps the first maxProbeOutput bytes and says when there was more.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	keep := p
	if room := maxProbeOutput - b.Len(); len(keep) > room {
		b.over = true
		keep = keep[:max(room, 0)]
	}
	_, _ = b.Buffer.Write(keep)
	return len(p), nil // the rest is dropped, not refused: the command is not blocked on its output
}

// tail is the end of a command's error output, for a message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "..." + s[len(s)-400:]
	}
	if s == "" {
		return "(no error output)"
	}
	return s
}
