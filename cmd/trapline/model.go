package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/evidence"
	agentplanner "github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/internal/modelserve"
	"github.com/trapline/trapline/traps"
)

const modelServeUsage = `usage: trapline model serve [--model adversary|obedient|diligent|lazy|habitual] [--trap ID] [--start-url URL] [--log FILE]

Serves trapline's planner as an OpenAI-compatible model on a loopback port (printed on the first line):
POST /v1/chat/completions (tools, tool_choice, stream, response_format), POST /v1/responses, GET
/v1/models, and Anthropic's Messages API, POST /v1/messages (tools, tool_use/tool_result, stream).
Point an agent framework at it with OPENAI_BASE_URL=<printed URL> and any OPENAI_API_KEY, or
ANTHROPIC_BASE_URL=<printed URL without /v1> and any ANTHROPIC_API_KEY.
It answers with a call of the agent's own tools (read from their JSON schemas), for the page state in
the messages. A request it cannot play is a 4xx naming what was missing. Every request and answer is
a line of --log (default model-calls.jsonl in the current folder). trapline run external
--model NAME starts one per run by itself.`

// cmdModel is `trapline model serve`.
func cmdModel(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "serve" {
		return withCode(exitUsage, fmt.Errorf("unknown command %q\n%s", append([]string{"model"}, args...), modelServeUsage))
	}
	fs := newFlags("model serve")
	model := fs.String("model", "adversary", "the model to play: "+strings.Join(modelserve.Models, ", "))
	trapID := fs.String("trap", "decoy-delete", "the trap whose diligent script the diligent model follows")
	startURL := fs.String("start-url", "", "where a first turn with no page state navigates (default: none, the agent's own first step)")
	logPath := fs.String("log", modelserve.CallsFile, "the call log (one JSON line per request)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return withCode(exitUsage, err)
	}
	if fs.NArg() != 0 || !slices.Contains(modelserve.Models, *model) {
		return withCode(exitUsage, fmt.Errorf("model serve: unexpected arguments %q or unknown --model %q (have %s)\n%s",
			fs.Args(), *model, strings.Join(modelserve.Models, ", "), modelServeUsage))
	}
	t, err := traps.Lookup(*trapID)
	if err != nil {
		return withCode(exitUsage, err)
	}
	p, err := modelserve.NewPlanner(*model, "", func() agentplanner.Planner { return traps.DiligentPlanner(t) })
	if err != nil {
		return withCode(exitUsage, err)
	}
	f, err := modelserve.OpenLog(*logPath)
	if err != nil {
		return withCode(exitBroken, err)
	}
	defer f.Close()
	ctx, stop := untilStopped()
	defer stop()
	s := &modelserve.Server{Model: *model, Planner: p, StartURL: *startURL, Log: f, Redactor: evidence.NewRedactor("")}
	base, closeFn, err := s.Listen(ctx)
	if err != nil {
		return withCode(exitBroken, err)
	}
	defer closeFn()
	fmt.Fprintln(stdout, base)
	fmt.Fprintf(os.Stderr, "trapline: %s; log %s; stop with Ctrl-C\n", modelserve.Describe(base, *model), *logPath)
	<-ctx.Done()
	return nil
}
