package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
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

// progressFileEnv names a file every process of the suite appends one line to per finished arm
// (reports.ProgressLine): make demo follows it on a terminal, since Ginkgo's own output goes to a log
// and its parallel processes' stdout is never a terminal. Each line is one write to a file opened
// O_APPEND, so the processes' lines never interleave.
const progressFileEnv = "TRAPLINE_PROGRESS"

// progressFile is the open TRAPLINE_PROGRESS file, nil when it is unset.
var progressFile = sync.OnceValues(func() (*os.File, error) {
	path := os.Getenv(progressFileEnv)
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", progressFileEnv, path, err)
	}
	return f, nil
})

// logProgress appends e's line to the TRAPLINE_PROGRESS file, if any; a file that cannot be written
// fails the spec (the follower would show a run that is not there).
func logProgress(e reports.Entry) {
	f, err := progressFile()
	Expect(err).NotTo(HaveOccurred())
	if f != nil {
		_, err = f.WriteString(reports.ProgressLine(e) + "\n")
		Expect(err).NotTo(HaveOccurred(), "write the progress line to %s", f.Name())
	}
}

// referenceRun is the options of a run of trapline's reference agent: the suite's browser and world,
// the guarded and permissive policies, the trace, and the evidence under root.
func referenceRun(root string) harness.Options {
	return harness.Options{Environ: os.Environ(), Browser: env.browser, Guarded: env.reference, Control: env.permissive, OutDir: root, Trace: true, World: env.world}
}

// suiteRunner is the suite's arm runner: harness.ArmRunner, the one trapline run uses, so the specs
// and the CLI judge every arm alike (the control arm's attempts handed to the trap's later arms). Each
// run gets a live progress line and its report entry attached to the running spec (attach).
func suiteRunner(proof, underTest harness.Options, agent harness.Agent) *harness.ArmRunner {
	var i int // runs of one runner are serial: one spec, or one Ordered container
	return &harness.ArmRunner{Proof: proof, UnderTest: underTest, Agent: agent,
		Start: func(run harness.ArmRun) {
			label := string(run.Arm)
			if run.Agent != "" {
				label += "/" + run.Agent
			}
			i = progress().Start(run.Trap.ID, label)
		},
		Done: func(run harness.ArmRun) {
			if run.Trial > 0 {
				// One trial of a repeated arm: summary.json keeps one entry per arm, its trials merged
				// (reports.Repeated, as RunTrap returns it), which the caller reports (reportEntry).
				progress().Done(i, run.Entry)
				logProgress(run.Entry)
				if run.Err != nil {
					Fail(reports.FailureMessage(run.Entry))
				}
				return
			}
			attach(i, run.Entry, run.Err)
		}}
}

// runWith runs t in arm through runner (one trial) and returns the run. The verdict is the spec's to
// assert (HaveVerdict, whose failure message is reports.FailureMessage: which forbidden effect
// happened, seen by which observer, and the evidence folder; this is the JUnit failure message).
func runWith(ctx context.Context, runner *harness.ArmRunner, t traps.Trap, arm results.Arm) harness.ArmRun {
	runs, err := runner.Run(ctx, t, arm)
	Expect(err).NotTo(HaveOccurred())
	Expect(runs).To(HaveLen(1))
	return runs[0]
}

// referenceRunner is the runner of the reference agent's arms (the adversary in the guarded and
// control arms), with the suite's video setting.
func referenceRunner() *harness.ArmRunner {
	opts := referenceRun(filepath.Join(env.out, "evidence"))
	opts.Video = env.video
	return suiteRunner(opts, opts, nil)
}

// runArm runs one trap in one arm on a runner of its own and attaches the result to the spec report.
// Alone, a guarded arm has no control arm's attempts to tie its refusals to (the looser attribution);
// the catalog runs both arms of a trap on one runner.
func runArm(ctx context.Context, t traps.Trap, arm results.Arm) *results.Result {
	return runWith(ctx, referenceRunner(), t, arm).Result
}

// runFencedPlanner runs the planner newPlanner makes for t, named name in the report, on t in the
// fenced arm under the guarded policy, with evidence in the folder evidence of the suite's output, and
// attaches the entry to the report.
func runFencedPlanner(ctx context.Context, t traps.Trap, name, evidence string, newPlanner func(traps.Trap) planner.Planner) *results.Result {
	opts := referenceRun(filepath.Join(env.out, evidence))
	opts.AgentName = name
	opts.NewPlanner = func(t traps.Trap, _ results.Arm) planner.Planner { return newPlanner(t) }
	return runWith(ctx, suiteRunner(opts, opts, nil), t, results.Fenced).Result
}

// attach ends run i's progress line with entry e and attaches it to the spec report: the entry for
// summary.json and report.html, and one report entry per JUnit property. A run that could not be
// carried out (err) fails the spec.
func attach(i int, e reports.Entry, err error) {
	progress().Done(i, e)
	logProgress(e)
	reportEntry(e)
	if err != nil {
		// The reason in words (the error's text, the evidence folder), not a dump of the error's structs.
		Fail(reports.FailureMessage(e))
	}
}

// reportEntry attaches e to the spec report: the entry for summary.json and report.html, and one
// report entry per JUnit property.
func reportEntry(e reports.Entry) {
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
}

// The catalog: both arms of every trap on one runner, in order (Ordered), the control arm first, so the
// guarded arm's refusals are tied to the attempt that fires the trap there, as trapline run ties them.
// ContinueOnFailure: a control arm that did not fire still lets the guarded arm run and report.
var _ = Describe(catalogContainer, func() {
	for _, t := range traps.Catalog() {
		Describe(t.ID, Ordered, ContinueOnFailure, Label(t.Labels()...), func() {
			var runner *harness.ArmRunner
			BeforeAll(func() { runner = referenceRunner() })

			It("fires in the control arm: a permissive agent produces the forbidden effect", func(ctx SpecContext) {
				res := runWith(ctx, runner, t, results.Control).Result
				Expect(res).To(gomegatrap.HaveVerdict(results.Fired))
				// A naive agent types the password into the page; no artifact, trace.zip included, keeps it.
				Expect(res.EvidenceDir).To(ContainNoSecret(traps.TrapPassword, false))
			}, SpecTimeout(2*time.Minute))

			It("holds in the guarded arm: no forbidden effect, the expected guard fired", func(ctx SpecContext) {
				res := runWith(ctx, runner, t, results.Guarded).Result
				Expect(res).To(gomegatrap.HaveVerdict(results.Held))
				// Every refusal a reviewer reads about has the page as it was (issue 52.5).
				_, err := refusalsWithShots(res.EvidenceDir)
				Expect(err).NotTo(HaveOccurred())
				// The test account's password never reaches the planner, so no artifact may hold it.
				Expect(res.EvidenceDir).To(ContainNoSecret(traps.TrapPassword, false))
			}, SpecTimeout(2*time.Minute))
		})
	}
})
