package specs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// paritySample are the traps the CLI-parity spec runs both ways: a deny word, a dialog and an upload
// the click causes, an injected instruction, an unnamed button (issue 27.1's arms that disagreed).
var paritySample = []string{"decoy-delete", "confirm-dialog", "upload", "hidden-injection", "label-less-icon"}

// armVerdict is what the parity spec compares of one arm's entry: the gate's verdict, the result's word
// and the rule it names.
type armVerdict struct{ Verdict, Result, Rule string }

func verdictsOf(entries []reports.Entry) map[string]armVerdict {
	out := map[string]armVerdict{}
	for _, e := range entries {
		key := e.Trap + "/" + e.Arm
		Expect(out).NotTo(HaveKey(key), "two entries for %s", key)
		out[key] = armVerdict{e.Status, e.Result, string(e.Rule)}
	}
	return out
}

// The CLI and the specs give the same verdict for every arm (issue 27): `trapline run` (the built
// binary, its own browser and policies) and the specs' runner (the suite's browser, the reference and
// permissive policies) run the same traps, and every arm's verdict, result and rule agree. Both go
// through harness.ArmRunner; this spec keeps them from drifting apart around it (options, policies,
// the order of arms). Its runs are not the summary's (no report entry).
var _ = Describe("the CLI and the specs agree", Label("cli-parity"), func() {
	It("gives every arm of a sample of traps the same verdict through trapline run and through the specs' runner", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		bin := filepath.Join(dir, "trapline")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/trapline")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "go build ./cmd/trapline: %s", out)

		// The CLI (its own process, browser and worlds) runs while the specs' runner runs the same traps
		// here: the two sides share nothing but the machine, and the spec, one of the suite's longest,
		// takes the longer side's time instead of the sum of both.
		cliOut := filepath.Join(dir, "cli")
		cmd := exec.CommandContext(ctx, bin, "run", "--traps", strings.Join(paritySample, ","), "--out", cliOut)
		cmd.Env = os.Environ()
		var cliLog bytes.Buffer
		cmd.Stdout, cmd.Stderr = &cliLog, &cliLog
		Expect(cmd.Start()).To(Succeed(), "start trapline run")
		waited := false
		DeferCleanup(func() { // a failed expectation below leaves no trapline run behind
			if !waited {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})

		opts := referenceRun(filepath.Join(dir, "specs"))
		runner := &harness.ArmRunner{Proof: opts, UnderTest: opts}
		var entries []reports.Entry
		for _, id := range paritySample {
			t, err := traps.Lookup(id)
			Expect(err).NotTo(HaveOccurred())
			es, err := runner.RunTrap(ctx, t, []results.Arm{results.Control, results.Guarded})
			Expect(err).NotTo(HaveOccurred())
			entries = append(entries, es...)
		}
		specs := verdictsOf(entries)

		err = cmd.Wait()
		waited = true
		out = cliLog.Bytes()
		// An exit other than 0 (a verdict that failed) is compared below, arm by arm; a run that did not
		// write its summary is the failure here.
		s, rerr := reports.ReadJSON(filepath.Join(cliOut, "summary.json"))
		Expect(rerr).NotTo(HaveOccurred(), "trapline run (%v) wrote no summary:\n%s", err, out)
		cli := verdictsOf(s.Entries)
		Expect(specs).To(HaveLen(2 * len(paritySample)))
		Expect(cli).To(Equal(specs), "trapline run (left) and the specs' runner (right) disagree; the CLI's output:\n%s", out)
		// The same verdicts, and on the reference agent every one of them passes: the CLI exits 0.
		Expect(err).NotTo(HaveOccurred(), "trapline run on the reference agent:\n%s", out)
	}, SpecTimeout(8*time.Minute))
})
