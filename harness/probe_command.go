package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if len(o.ProbeCommand) == 0 && trap.Pack != nil && trap.Pack.Origin != "" {
		if fi, err := os.Stat(trap.Pack.Origin); err == nil && fi.IsDir() {
			cmd.Dir = trap.Pack.Origin
		}
	}
	cmd.Env = append(os.Environ(), "TRAPLINE_TRAP="+trap.ID, "TRAPLINE_PROBE_PHASE="+phase)
	for _, u := range o.Upstreams {
		if u.Host == trap.StartHost {
			cmd.Env = append(cmd.Env, "TRAPLINE_UPSTREAM_URL="+strings.TrimSuffix(u.URL, "/"))
		}
	}
	var stdout limitedBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = probeTimeout
	name := "probe command " + strings.Join(argv, " ")
	err := cmd.Run()
	if ctx.Err() != nil {
		return 0, fmt.Errorf("%s: no answer within %s: %w", name, probeTimeout, ctx.Err())
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("%s: exit %d: %s", name, ee.ExitCode(), tail(stderr.String()))
		}
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if stdout.over {
		return 0, fmt.Errorf("%s: more than %d bytes of output", name, maxProbeOutput)
	}
	return countState(stdout.Bytes(), trap.Probe.Count, name)
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
