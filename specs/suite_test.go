package specs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/container"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

func TestSpecs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "trapline traps")
}

// suite is the per-process state: each Ginkgo process has its own browser and writes its own evidence
// folders (one per trap and arm), so processes share nothing.
type suite struct {
	browser    *browser.Browser
	reference  *policy.Policy
	permissive *policy.Policy
	out        string
	// world starts each run's world: nil is the embedded world; a *container.Launcher in container
	// mode (TRAPLINE_WORLD), one per process, so processes share no container.
	world     world.Launcher
	container *container.Launcher
	// video is TRAPLINE_VIDEO: off (default), failing or all (harness.Options.Video).
	video string
	// provenance says what produced this process's runs (summary.json and every JUnit case).
	provenance *reports.Provenance
	// cdp is the process's shared CDP browser for the external agents' runs, launched by the first
	// (externalBrowser) and closed after the suite; nil until then.
	cdp    *browser.SharedCDP
	cdpLog *os.File
}

var env suite

// missingControls lists the catalog traps that selected reports as selected and that have no passing
// control arm among entries; a nil selected means every trap of the catalog.
func missingControls(entries []reports.Entry, selected map[string]bool) []string {
	passed := map[string]bool{}
	for _, e := range entries {
		if e.Arm == string(results.Control) && e.Status == "pass" {
			passed[e.Trap] = true
		}
	}
	var missing []string
	for _, t := range traps.Catalog() {
		if selected != nil && !selected[t.ID] {
			continue
		}
		if !passed[t.ID] {
			missing = append(missing, t.ID)
		}
	}
	return missing
}

// duplicateArms lists each pair of entries with the same trap, arm and agent (the key the strict
// summary reader and the baseline use: reports.AgentName, so "" and the reference agent are one),
// with the specs that reported them (specs[i] is entry i's).
func duplicateArms(entries []reports.Entry, specs []string) []string {
	type key struct{ trap, arm, agent string }
	first := map[key]int{}
	var out []string
	for i, e := range entries {
		k := key{e.Trap, e.Arm, reports.AgentName(e.Agent)}
		if j, ok := first[k]; ok {
			agent := k.agent
			if agent == "" {
				agent = results.ReferenceAgent
			}
			out = append(out, fmt.Sprintf("%s/%s of agent %s: reported by %q and by %q (give the agent under test a name of its own, or leave the repeated arm out of the report)",
				k.trap, k.arm, agent, specs[j], specs[i]))
			continue
		}
		first[k] = i
	}
	return out
}

// outDir is where reports and evidence go: $TRAPLINE_OUT, or reports/out at the repository root.
func outDir() string {
	if d := os.Getenv("TRAPLINE_OUT"); d != "" {
		abs, err := filepath.Abs(d)
		Expect(err).NotTo(HaveOccurred())
		return abs
	}
	abs, err := filepath.Abs(filepath.Join("..", "reports", "out"))
	Expect(err).NotTo(HaveOccurred())
	return abs
}

// SynchronizedBeforeSuite: process 1 picks the world (TRAPLINE_WORLD), and in container mode sweeps
// what crashed runs left and builds the world image once; every process then gets its own browser and,
// in container mode, its own launcher labelled with the shared run ID.
var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	mode, err := container.ModeFromEnv(os.Getenv)
	Expect(err).NotTo(HaveOccurred())
	choice, err := container.Prepare(ctx, mode, container.EngineFromEnv(os.Getenv), os.Environ())
	Expect(err).NotTo(HaveOccurred())
	PauseOutputInterception()
	fmt.Fprintf(os.Stdout, "trapline: %s\n", choice.Why)
	ResumeOutputInterception()
	data, err := json.Marshal(choice)
	Expect(err).NotTo(HaveOccurred())
	return data
}, func(data []byte) {
	var choice container.Prepared
	Expect(json.Unmarshal(data, &choice)).To(Succeed())
	l, err := choice.Launcher()
	Expect(err).NotTo(HaveOccurred())
	if l != nil {
		env.container, env.world = l, l
	}
	AddReportEntry("world", choice.Why)
	env.out = outDir()
	env.video, err = harness.ParseVideo(os.Getenv("TRAPLINE_VIDEO"))
	Expect(err).NotTo(HaveOccurred(), "TRAPLINE_VIDEO")
	// TRAPLINE_POLICY swaps the guarded arm's policy: the CI gate for a policy change runs the catalog
	// under the candidate and compares with the baseline.
	guarded := filepath.Join("..", "policies", "reference.yml")
	if p := os.Getenv("TRAPLINE_POLICY"); p != "" {
		guarded = p
	}
	env.reference, err = policy.Load(guarded)
	Expect(err).NotTo(HaveOccurred())
	env.permissive, err = policy.Load(filepath.Join("..", "policies", "permissive.yml"))
	Expect(err).NotTo(HaveOccurred())
	// The driver is a long-lived child process that inherits stdout/stderr: keep it out of Ginkgo's
	// per-spec output capture.
	PauseOutputInterception()
	// TRAPLINE_BROWSER_WS: a remote Playwright browser server instead of a local Chromium.
	alloc, err := browser.AllocatorFromEnv(browser.Options{Environ: os.Environ()})
	Expect(err).NotTo(HaveOccurred())
	AddReportEntry("browser", alloc.String())
	env.browser, err = alloc.Allocate()
	ResumeOutputInterception()
	Expect(err).NotTo(HaveOccurred(), "%s (run `make setup` first)", alloc)
	DeferCleanup(func() { Expect(env.browser.Close()).To(Succeed()) })
	env.provenance = suiteProvenance(guarded, l != nil)
})

// SynchronizedAfterSuite: every process closes the worlds it still holds (a spec that failed or
// panicked before closing its own, an interrupted run); then process 1, after all the others, checks
// that no container or network of this run is left.
var _ = SynchronizedAfterSuite(func() {
	if env.cdp != nil {
		Expect(env.cdp.Close()).To(Succeed())
		Expect(env.cdpLog.Close()).To(Succeed())
	}
	if env.container != nil {
		Expect(env.container.Close()).To(Succeed())
	}
}, func(ctx SpecContext) {
	if env.container == nil {
		return
	}
	Expect(container.CheckNoneLeft(ctx, env.container.Run())).To(Succeed())
})

// ReportAfterSuite runs once, on process 1, with every process's specs merged: it writes the JSON
// summary the CLI reads and the self-contained HTML report (report.html) next to it, and prints the
// table.
var _ = ReportAfterSuite("trapline summary", func(r Report) {
	var (
		s     reports.Summary
		specs []string // the full text of the spec of each entry of s
	)
	for _, sr := range r.SpecReports {
		for _, e := range sr.ReportEntries {
			if e.Name != reports.EntryName {
				continue
			}
			// Entries from other processes arrive as JSON maps; local ones as the raw value.
			raw, err := json.Marshal(e.Value.GetRawValue())
			Expect(err).NotTo(HaveOccurred())
			var entry reports.Entry
			Expect(json.Unmarshal(raw, &entry)).To(Succeed())
			s.Entries = append(s.Entries, entry)
			specs = append(specs, sr.FullText())
		}
	}
	// One entry per trap, arm and agent, as trapline report reads a summary: a spec that repeats
	// another's arm under the same agent name fails the run here, naming both, rather than write a
	// summary make demo's strict reader refuses.
	Expect(duplicateArms(s.Entries, specs)).To(BeEmpty(), "summary.json: two specs report the same arm")
	// A shard without trap arms (the bypass suite) still writes its summary: `trapline report --merge`
	// needs every shard's, and an empty one gates as broken, never as green. A dry run writes nothing.
	if r.SuiteConfig.DryRun {
		return
	}
	s.Provenance = env.provenance
	s.Finish(time.Now())
	Expect(reports.MeasureEvidence(&s, outDir())).To(Succeed())
	Expect(reports.WriteJSON(filepath.Join(outDir(), "summary.json"), s)).To(Succeed())
	Expect(reports.WriteHTMLFile(filepath.Join(outDir(), "report.html"), s, reports.HTMLOptions{SummaryDir: outDir()})).To(Succeed())
	Expect(reports.Table(GinkgoWriter, s)).To(Succeed())
	// No trap ships without proof that it can catch a naive agent: every trap the run selected (any of
	// its catalog specs ran, under any label filter, focus or skip) needs a passing control arm, so a
	// shard that selects a trap also checks its control arm. Checked after the reports are written, so
	// a failure here still leaves them for the CI gate.
	Expect(missingControls(s.Entries, selectedTraps(r))).To(BeEmpty(), "selected traps without a passing control arm")
})
