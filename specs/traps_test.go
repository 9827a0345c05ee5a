package specs

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

// progress prints a live line per trap arm (i/N, trap, arm, verdict) when stdout is a terminal (a
// serial run); it is quiet otherwise (parallel processes, go test, CI, make demo's log). N counts the
// runs the label filter selects: two arms per catalog trap, and one black-box run per trap of the
// external agent's specs (label "external"); runs past it (the scenario) show only i.
var progress = sync.OnceValue(func() *reports.Progress {
	total := 0
	if match, err := types.ParseLabelFilter(GinkgoLabelFilter()); err == nil {
		for _, t := range traps.Catalog() {
			if match(t.Labels()) {
				total += 2 // the guarded and control arms of "the trap catalog"
			}
			if match(append([]string{"external"}, t.Labels()...)) {
				total++ // "an external agent, judged from outside"
			}
		}
	}
	return reports.NewProgress(os.Stdout, total)
})

// referenceRun is the options of a run of trapline's reference agent: the suite's browser and world,
// the guarded and permissive policies, the trace, and the evidence under root.
func referenceRun(root string) harness.Options {
	return harness.Options{Browser: env.browser, Guarded: env.reference, Control: env.permissive, OutDir: root, Trace: true, World: env.world}
}

// runArm runs one trap in one arm and attaches the result to the spec report: the reports.Entry (for
// summary.json and the HTML report) and one report entry per JUnit property (trap, category, arm,
// verdict, expected_guard, guard_fired, effects, evidence). A run that could not be carried out is
// recorded as broken (the fixture, not the trap) and fails the spec. The verdict is the spec's to
// assert (HaveVerdict, whose failure message is reports.FailureMessage: which forbidden effect
// happened, seen by which observer, and the evidence folder; this is the JUnit failure message).
func runArm(ctx context.Context, t traps.Trap, arm harness.Arm) *harness.Result {
	i := progress().Start(t.ID, string(arm))
	opts := referenceRun(filepath.Join(env.out, "evidence"))
	opts.Video = env.video
	res, err := harness.Run(ctx, opts, t, arm)
	attachEntry(i, t, string(arm), "", filepath.Join(env.out, "evidence", t.ID, string(arm)), res, err)
	return res
}

// runFencedPlanner runs the planner newPlanner makes for t, named name in the report, on t in the
// fenced arm under the guarded policy, with evidence in the folder evidence of the suite's output, and
// attaches the entry to the report.
func runFencedPlanner(ctx context.Context, t traps.Trap, name, evidence string, newPlanner func(traps.Trap) planner.Planner) *harness.Result {
	i := progress().Start(t.ID, string(harness.Fenced)+"/"+name)
	root := filepath.Join(env.out, evidence)
	opts := referenceRun(root)
	opts.AgentName = name
	opts.NewPlanner = func(t traps.Trap, _ harness.Arm) planner.Planner { return newPlanner(t) }
	res, err := harness.Run(ctx, opts, t, harness.Fenced)
	attachEntry(i, t, string(harness.Fenced), name, harness.EvidencePath(root, t.ID, harness.Fenced, name), res, err)
	return res
}

// attachEntry turns run i of trap t into a report entry (broken, in evidenceDir, when err says the run
// could not be carried out), ends its progress line and attaches it to the spec report: the entry for
// summary.json and report.html, and one report entry per JUnit property. A broken run fails the spec.
func attachEntry(i int, t traps.Trap, arm, agent, evidenceDir string, res *harness.Result, err error) reports.Entry {
	run := reports.Run{Trap: t.ID, Category: string(t.Category), Incident: t.Incident, Task: t.Task, Arm: arm, Agent: agent, Evidence: evidenceDir}
	e := run.Entry(res, err)
	progress().Done(i, e)
	AddReportEntry(reports.EntryName, e, ReportEntryVisibilityNever)
	props := reports.Properties(e)
	if env.provenance != nil {
		props = append(props, env.provenance.Properties()...)
	}
	for _, p := range props {
		visibility := ReportEntryVisibilityNever
		if p.Name == reports.PropEvidence {
			visibility = ReportEntryVisibilityFailureOrVerbose
		}
		AddReportEntry(p.Name, p.Value, visibility)
	}
	if err != nil {
		// The reason in words (the error's text, the evidence folder), not a dump of the error's structs.
		Fail(reports.FailureMessage(e))
	}
	return e
}

var _ = Describe(catalogContainer, func() {
	for _, t := range traps.Catalog() {
		Describe(t.ID, Label(t.Labels()...), func() {
			It("holds in the guarded arm: no forbidden effect, the expected guard fired", func(ctx SpecContext) {
				res := runArm(ctx, t, harness.Guarded)
				Expect(res).To(HaveVerdict(harness.Held))
				// The test account's password never reaches the planner, so no artifact may hold it.
				Expect(res.EvidenceDir).To(ContainNoSecret(traps.TrapPassword, false))
			}, SpecTimeout(2*time.Minute))

			It("fires in the control arm: a permissive agent produces the forbidden effect", func(ctx SpecContext) {
				res := runArm(ctx, t, harness.Control)
				Expect(res).To(HaveVerdict(harness.Fired))
				// A naive agent types the password into the page; no artifact, trace.zip included, keeps it.
				Expect(res.EvidenceDir).To(ContainNoSecret(traps.TrapPassword, false))
			}, SpecTimeout(2*time.Minute))
		})
	}
})
