package main

// The help of trapline run's modes (run_modes.go); writeHelp adds each mode's flags.

const runUsage = `usage:
  trapline run [flags]                                  the reference agent (guarded and control arms)
  trapline run --planner diligent|llm [flags]           another planner in the reference runtime
  trapline run exec [flags] -- PLANNER CMD ARGS...      a planner process of yours (docs/exec-protocol.md)
  trapline run external [flags] -- CMD ARGS...          a black-box agent of yours (docs/external-agents.md)
  trapline run mcp|agent-browser [flags] -- CMD ARGS... an agent tool (docs/agent-tools.md)
  trapline run --upstream HOST=URL [flags]              your own apps (or --upstream URL --upstream-host HOST, --upstream-image IMAGE)
Each mode has its own flags: trapline help run exec (external, mcp, agent-browser) lists them. The
spelling of earlier versions, run --agent exec|external|mcp|agent-browser, still works.
trapline run runs the reference agent in the guarded and control arms of each trap. With --planner
diligent or llm (and --model) the adversary still proves each trap (guarded and control arms), then
the planner under test runs in the fenced arm (and with --unfenced the unfenced arm), judged from
outside: held (refrained, or stopped by a rule at a layer), caught, or not exercised. --min-completed
R also gates utility (exit 5 when the fenced arms' completed-under-policy rate is below R). --repeat K
runs every arm of an agent under test K times in fresh worlds: it holds only if all K hold (pass^k).
--twins adds the benign twins (a trap's page without the bait) in the fenced arm of the agent under
test: the task must be done and the fence must refuse nothing.
--traps takes trap ids or labels (categories, trap:ID), comma separated; default the whole catalog and
every pack given with --traps-dir (a folder of *.trap.yml files, docs/trap-packs.md); the headline
scenario (update-20-pratiche) runs when named by its id. Policies are an embedded name (reference,
permissive) or a file.
Writes OUT/evidence/, OUT/summary.json, OUT/junit.xml and OUT/report.html (default OUT: reports/out/run),
superseding a previous run's; OUT is marked in progress while it runs, and a signal writes an
interrupted summary that every gate refuses (docs/ci.md).
exit: 0 every arm proved its claim (external: the agent was caught by no trap); 1 an arm failed its
verdict (external: a trap caught the agent); 2 usage; 3 a run broke (fixture, environment, an agent that
could not start).`

const runExecUsage = `usage: trapline run exec [flags] -- PLANNER CMD ARGS...
Runs a planner process of yours (docs/exec-protocol.md) in the reference runtime: the adversary
proves each trap (guarded and control arms), then your planner runs in the fenced arm (and with
--unfenced the unfenced arm), judged from outside like trapline run --planner llm. The command runs in
the folder trapline was started from. Flags, outputs and exit codes as trapline run's
(trapline help run).`

const runExternalUsage = `usage: trapline run external [flags] -- CMD ARGS...
Runs CMD as a black-box agent (blackbox arm): it gets TRAPLINE_START_URL, TRAPLINE_TASK,
TRAPLINE_CDP_URL, HTTP(S)_PROXY, TRAPLINE_ARTIFACTS, TRAPLINE_DOWNLOADS (docs/external-agents.md) and
is judged only by what the world's observers saw, after each trap's control arm (the adversary under
--control-policy), whose attempt tells held (stopped by a rule at a layer) from held (refrained). Its
proxy observes (every world host allowed and logged) unless --policy names the deployment's fence.
With --model trapline serves that model at an OpenAI-compatible endpoint of the run's own
(OPENAI_BASE_URL). The command runs in the folder trapline was started from; its artifacts go to the
folder TRAPLINE_ARTIFACTS names.
exit: 0 the agent was caught by no trap; 1 a trap caught the agent; 2 usage; 3 a run broke.`

const runMCPUsage = `usage: trapline run mcp [flags] -- CMD ARGS...
Starts the MCP browser server CMD (stdio, or streamable HTTP at --mcp-url), drives it with the
adversary acting as the model and judges it like an external agent; ${TRAPLINE_PROXY_URL} and
${TRAPLINE_CDP_URL} in CMD are the run's (docs/agent-tools.md).
exit: 0 the agent was caught by no trap; 1 a trap caught the agent; 2 usage; 3 a run broke.`

const runAgentBrowserUsage = `usage: trapline run agent-browser [flags] -- CMD ARGS...
Runs the agent-browser CLI CMD, driven by the adversary acting as the model, and judges it like an
external agent; ${TRAPLINE_PROXY_URL} and ${TRAPLINE_CDP_URL} in CMD are the run's
(docs/agent-tools.md).
exit: 0 the agent was caught by no trap; 1 a trap caught the agent; 2 usage; 3 a run broke.`

// modeUsage is the help of the mode whose agent kind is agent (trapline run's for an unknown one).
func modeUsage(agent string) string {
	for _, m := range runModes {
		if m.agent == agent {
			return commandHelp(m.command())
		}
	}
	return runUsage
}
