package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// command is one entry of trapline's command list: the words that name it and what it does in a line.
type command struct {
	words   []string
	summary string
	// internal commands (the container world's own) are listed apart.
	internal bool
}

// commands is every sub-command, in the order `trapline` lists them; TestHelpOfEveryCommand walks it.
var commands = []command{
	{words: []string{"setup"}, summary: "install the Playwright driver and the agent tools; check the browser (make setup runs it)"},
	{words: []string{"run"}, summary: "run the catalog (or --traps) against the reference agent, or another planner in its runtime"},
	{words: []string{"run", "exec"}, summary: "run a planner process of yours in the reference runtime (docs/exec-protocol.md)"},
	{words: []string{"run", "external"}, summary: "run a black-box agent of yours, judged by what the world saw (docs/external-agents.md)"},
	{words: []string{"run", "mcp"}, summary: "run an MCP browser server, driven by the adversary as its model (docs/agent-tools.md)"},
	{words: []string{"run", "agent-browser"}, summary: "run the agent-browser CLI, driven by the adversary as its model (docs/agent-tools.md)"},
	{words: []string{"report"}, summary: "print a run's table and gate on it; HTML, baseline, flake, merge, patterns, failures"},
	{words: []string{"serve"}, summary: "start a world with one trap's pages for a person or an agent of your own"},
	{words: []string{"observe"}, summary: "print a page's observation as the planner and a pack's steps get it (ref, role, name)"},
	{words: []string{"proxy"}, summary: "run the egress proxy with a policy's network rules in front of any agent"},
	{words: []string{"traps", "list"}, summary: "print the catalog (and the traps of --traps-dir packs)"},
	{words: []string{"traps", "new"}, summary: "scaffold a trap (a pack file and its page); it fails lint until its TODOs are filled in"},
	{words: []string{"traps", "lint"}, summary: "load trap packs strictly: one line per problem (file:line:column: field: reason)"},
	{words: []string{"policy", "lint"}, summary: "validate a policy file and summarise what it allows"},
	{words: []string{"rules", "list"}, summary: "print every rule id a guard can name: its layer, category and meaning"},
	{words: []string{"tools", "list"}, summary: "list the agent-tools configs (MCP servers, agent-browser) and the command each runs"},
	{words: []string{"tools", "matrix"}, summary: "run the agent tools against the catalog and rewrite docs/agent-tools.md's matrix"},
	{words: []string{"model", "serve"}, summary: "serve trapline's planner as an OpenAI-compatible model for an agent framework (run external --model starts one per run)"},
	{words: []string{"evidence", "prune"}, summary: "remove evidence folders older than an age (retention)"},
	{words: []string{"mutate"}, summary: "mutation testing: weaken one guard at a time and report the surviving mutants"},
	{words: []string{"sites"}, summary: "serve some of a world's sites (the container world's entrypoint)", internal: true},
	{words: []string{"audit"}, summary: "print a sites process's audit list (used inside the container world)", internal: true},
}

// exitMeanings is every exit code trapline returns, with its meaning: the command list prints it and
// TestExitCodesDocumented compares it with the exit constants and with the README's table.
var exitMeanings = []struct {
	code    int
	meaning string
}{
	{exitOK, "ok"},
	{exitFailed, "an arm failed its verdict (external: a trap caught the agent), with no baseline verdict to compare with; report --flake: a verdict changed"},
	{exitUsage, "bad usage or bad input (an unknown flag, an unreadable summary, a policy or pack with problems)"},
	{exitBroken, "a run broke (fixture, environment, an agent that could not start): not a trap firing; report --flake: an arm is missing from some runs"},
	{exitRegression, "report --baseline: a regression, an arm that held in the baseline fails now"},
	{exitUtility, "run --min-completed R: safety held, but the agent under test completed fewer tasks than R"},
}

// helpTexts is each flag set's hand-written help (synopsis, purpose, exit codes), keyed by the flag
// set's name; writeHelp adds the flags from the flag set.
var helpTexts = map[string]string{
	"setup":             setupUsage,
	"run":               runUsage,
	"run exec":          runExecUsage,
	"run external":      runExternalUsage,
	"run mcp":           runMCPUsage,
	"run agent-browser": runAgentBrowserUsage,
	"report":            reportUsage,
	"serve":             serveUsage,
	"observe":           observeUsage,
	"proxy":             proxyUsage,
	"traps list":        trapsListUsage,
	"traps new":         trapsNewUsage,
	"traps lint":        trapsLintUsage,
	"policy lint":       policyLintUsage,
	"rules list":        rulesListUsage,
	"tools list":        toolsUsage,
	"model serve":       modelServeUsage,
	"tools matrix":      toolsUsage,
	"evidence prune":    pruneUsage,
	"mutate":            mutateUsage,
	"sites":             sitesUsage,
	"audit":             auditUsage,
}

// commandHelp is the hand-written help of the flag set named name.
func commandHelp(name string) string {
	if h, ok := helpTexts[name]; ok {
		return h
	}
	return "usage: trapline " + name + " [flags]"
}

const setupUsage = `usage: trapline setup [--browser-only]
Installs the Playwright driver for the system Node.js (no browser is downloaded), checks the default
headless browser (Debian's chromium-headless-shell) and ffmpeg for video, and installs the agent tools
pinned in tools/package-lock.json and the agent-framework examples pinned in
examples/stagehand-agent/, examples/openai-agents/, examples/ai-sdk-anthropic/, examples/magnitude-agent/
and examples/browser-use-agent/ (npm ci; for browser-use, canvas's native addon built against Cairo's
headers). make setup
runs it after the apt packages.
--browser-only stops after the driver and the browser (what the catalog needs: make demo runs it).
exit: 0 ready; 3 something is missing (the message says what to install).`

const serveUsage = `usage: trapline serve [flags]
Starts a world with one trap's pages (--trap, default decoy-delete; a pack's trap with --traps-dir) and
runs until interrupted. Prints the proxy and the Chromium command line that opens the trap's page: the
browser reaches the world only through that proxy. The proxy intercepts HTTPS with a CA made for this
world alone; its certificate is written to ca.pem in the --out folder (printed as "ca"), and the
printed command line makes that one browser trust it (--ignore-certificate-errors-spki-list), never the
system's trust store. --upstream HOST=URL (repeatable), or a bare --upstream URL with --upstream-host.`

const auditUsage = `usage: trapline audit --addr HOST:PORT effects|requests|pratiche
Prints one audit list of a sites process as JSON (the container world runs it inside a container).`

const trapsListUsage = `usage: trapline traps list [flags]
Prints the catalog: each trap's id, category, forbidden effects and expected guards.`

const trapsNewUsage = `usage: trapline traps new [flags] ID
Scaffolds ID.trap.yml and ID.html (ID in kebab-case), all or nothing, in --pack DIR or, from the
repository root, in the built-in pack (traps/packs/builtin). The trap fails trapline traps lint until
its TODOs are filled in (docs/trap-packs.md).`

const trapsLintUsage = `usage: trapline traps lint DIR...
Loads each trap pack folder strictly and prints one line per trap, or one line per problem
(file:line:column: field: reason). A pack holds regular files, folders and symlinks inside it only:
a FIFO, a device or a socket is a problem, refused without reading it. exit: 0 every pack is valid;
2 a pack has problems.`

const policyLintUsage = `usage: trapline policy lint FILE
Validates a policy file and prints a summary of what it allows (a file with no version and no
actions.writes is read in the seeds' format, and the summary says so), then a "warning:" line for each
place where the policy can do nothing (no writes, no deny words). A problem names file:line: field:
reason. exit: 0 valid, warnings or not; 2 a problem.`

const rulesListUsage = `usage: trapline rules list [flags]
Prints every rule of the policy's rule registry (policy.Registry): its id, the layer of the fence that
applies it, its category and what it means. These ids are what a trap's guards: names, what the
violation log and the proxy log write, and what reports show.`

// writeCommandList prints trapline's commands, each with its line, and the exit codes.
func writeCommandList(w io.Writer) {
	fmt.Fprintln(w, "trapline proves that a browser agent stays inside its fence.")
	fmt.Fprintln(w, "\nusage: trapline COMMAND [flags] [args]\n\ncommands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		if !c.internal {
			fmt.Fprintf(tw, "  %s\t%s\n", strings.Join(c.words, " "), c.summary)
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\n`trapline help COMMAND` or `trapline COMMAND --help` prints a command's help and every flag.")
	fmt.Fprintln(w, "\nexit codes:")
	for _, e := range exitMeanings {
		fmt.Fprintf(w, "  %d  %s\n", e.code, e.meaning)
	}
}

// groupUsage is the help of a command group (traps, policy, tools, evidence) named alone.
func groupUsage(group string) string {
	var b strings.Builder
	b.WriteString("usage:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		if c.words[0] == group {
			fmt.Fprintf(tw, "  trapline %s\t%s\n", strings.Join(c.words, " "), c.summary)
		}
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}
