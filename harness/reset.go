package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// resetArgv is the command that resets the user's app before an arm: Options.ResetCommand (trapline
// run --reset-cmd) when set, else the trap's own (a pack's reset:); nil means no reset.
func resetArgv(o Options, trap traps.Trap) []string {
	if len(o.ResetCommand) > 0 {
		return o.ResetCommand
	}
	return trap.Reset
}

// resetState runs the trap's reset command, if any, before the arm: so that no arm sees the state
// another left. A pack's own reset runs from the pack's folder, Options.ResetCommand from the current
// one; either sees TRAPLINE_TRAP, TRAPLINE_ARM and the upstreams' URLs (trapEnv). Its standard output
// is ignored. A reset that fails is an error naming the command and its error output: the arm is
// broken (it would run on a state nobody knows), never run.
func resetState(ctx context.Context, o Options, trap traps.Trap, arm results.Arm) error {
	argv := resetArgv(o, trap)
	if len(argv) == 0 {
		return nil
	}
	dir := ""
	if len(o.ResetCommand) == 0 {
		dir = packDir(trap)
	}
	name := "reset command " + strings.Join(argv, " ")
	env, err := trapEnv(o, trap)
	if err != nil {
		return fmt.Errorf("harness: %s/%s: reset before the arm: %s: %w", trap.ID, arm, name, err)
	}
	if _, err := runCommand(ctx, argv, dir, append(env, "TRAPLINE_ARM="+string(arm)), name); err != nil {
		return fmt.Errorf("harness: %s/%s: reset before the arm: %w", trap.ID, arm, err)
	}
	return nil
}
