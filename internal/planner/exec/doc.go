// Package exec is a planner that is an external process: any program, in any language, that reads one
// observation message per line on stdin and writes one action line on stdout (JSON lines, protocol
// version 1, docs/exec-protocol.md; JSON schemas in schema/).
//
//	p, err := exec.Start(ctx, exec.Config{Command: []string{"node", "examples/exec-planner/planner.js"}, Stderr: os.Stderr})
//	if err != nil {
//		return err
//	}
//	defer p.Close() // kills the process group and reaps it
//	agent := &agentkit.Agent{Policy: pol, Planner: p}
//
// Each decision is bounded by the caller's context (the loop's budget.max_decision_seconds): a
// process that does not answer in time is killed, since a late answer could not be told from the
// next one. A process that exits is an error carrying its exit status and the tail of its stderr. A
// line that is not a valid action, or names a ref the observation does not have, is a
// *planner.RejectedError, which the loop logs and feeds back in the next message's "feedback"; after
// Config.MaxRejections in a row, planner.ErrGaveUp.
package exec
