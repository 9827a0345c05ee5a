// Package agenttools puts real agent tools under test: MCP browser servers (@playwright/mcp,
// chrome-devtools-mcp) and agent CLIs (agent-browser), driven by a trapline planner acting as the
// model. The planner (the adversary by default: the worst-case model) reads the tool's own snapshot,
// proposes one action, and the action becomes the tool's own call (browser_click, click @e3, ...); the
// tool's answer, errors and refusals included, is fed back as the outcome. Whatever the tool lets
// through is then judged by trapline's outside observers, exactly as any black-box agent: an MCP
// agent is a harness.Agent and runs through harness.RunAgent.
//
// The tool is chosen by its tool list (MCP) or by its command (CLI): one small adapter per family maps
// trapline's closed set of actions onto the tool's calls. An action the tool does not offer is an
// outcome fed back to the planner ("the tool offers no select"), never a crash; a family whose
// required tool is missing is a clear error naming it.
//
// Page text reaches the planner as agentkit gives it: the tool's snapshot parsed by agentkit/observe
// into an Observation (refs qualified by snapshot, secrets redacted), the page's words as data in
// planner.Input, never as instructions of trapline's own.
//
// Bad input fails closed: a server that does not start (or never answers initialize) ends the run
// with an error wrapping harness.ErrAgentNotStarted; one that started and then lists tools that
// cannot drive a run, exits mid-run, answers malformed JSON-RPC or hangs past a call's deadline, with
// one wrapping harness.ErrAgentBroken (a server that started is never "could not be started"); each
// with the server's stderr tail, so the run is broken, never a pass.
//
//	agent := &agenttools.MCP{AgentName: "playwright-mcp", Command: []string{"node", cli,
//		"--headless", "--isolated", "--no-sandbox", "--executable-path", "/usr/bin/chromium",
//		"--proxy-server", "${TRAPLINE_PROXY_URL}", "--allowed-origins", "http://portale.interno.test"}}
//	res, err := harness.RunAgent(ctx, opts, trap, agent)
package agenttools
