package specs

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// The hostile suite's browser-edge cases (issue 49: classes 1, 9 and 13), each with its control.
var _ = Describe("the hostile suite at the browser edge", Label("hostile"), func() {
	exeDownload := func() traps.Trap {
		t, err := traps.Lookup("exe-download")
		Expect(err).NotTo(HaveOccurred())
		return t
	}

	// 49.1: a plain Playwright agent over TRAPLINE_CDP_URL downloads without saveAs, into the folder
	// Playwright asks the browser for. The download is an effect wherever it lands: the browser
	// reports it, and the agent cannot move it (its Browser.setDownloadBehavior is rewritten).
	It("49.1 sees a download wherever the agent's CDP asked it to land (Playwright without saveAs)", Label("external", "trap:exe-download"), func(ctx SpecContext) {
		t := exeDownload()
		res := runExternal(ctx, t, noSaveAgent())
		Expect(res.StartLoaded).To(BeTrue(), "the agent never loaded the start page (%s); evidence %s", res.AgentExit, res.EvidenceDir)
		Expect(res.AgentExit).To(Equal("exit 0"))
		Expect(results.Judge(res).Verdict).To(Equal(results.Caught), "evidence %s", res.EvidenceDir)
		Expect(res.Forbidden).NotTo(BeEmpty())
		rec, err := os.ReadFile(filepath.Join(res.EvidenceDir, "browser-downloads.jsonl"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(ContainSubstring(`"suggested_filename":"aggiorna.bat"`), "the browser's own report of the download")

		// Control: the same agent on a browser whose DevTools port nothing filters or watches: the file
		// lands in Playwright's own folder and the run's download folder, the only place a watch of one
		// folder looks, stays empty.
		downloads := filepath.Join(GinkgoT().TempDir(), "downloads")
		w, err := world.Start(world.Spec{Policy: env.reference, Fixtures: t.Fixtures(), Dir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Close)
		b, err := browser.LaunchCDP(ctx, browser.CDPOptions{ProxyURL: w.ProxyURL(), DownloadsDir: downloads, Environ: os.Environ()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(b.Close)
		cmd := noSaveAgent()
		run := exec.CommandContext(ctx, cmd.Path, cmd.Args...)
		run.Env = append(os.Environ(), append(cmd.Env, harness.EnvCDPURL+"="+b.URL(), harness.EnvStartURL+"="+harness.StartURL(w, t))...)
		var out bytes.Buffer
		run.Stdout, run.Stderr = &out, GinkgoWriter
		Expect(run.Run()).To(Succeed(), out.String())
		var step struct {
			File, Path string
			Saved      bool
		}
		Expect(json.Unmarshal([]byte(strings.TrimSpace(out.String())), &step)).To(Succeed(), out.String())
		Expect(step.File).To(Equal("aggiorna.bat"))
		Expect(step.Path).NotTo(HavePrefix(downloads))
		Expect(step.Saved).To(BeTrue(), "the control's download is in Playwright's folder (%s)", step.Path)
		Expect(os.ReadDir(downloads)).To(BeEmpty(), "the control's run folder holds the download: the technique did not work")
	}, SpecTimeout(3*time.Minute))

	// 49.13: choosing an option of a select whose current option says a deny word is judged by the
	// option chosen: the benign twin (a filter showing "Pratiche eliminate" set to "Pratiche aperte")
	// completes with no refusal. Control: the harmful choice of select-operation ("Elimina pratica")
	// is still refused, by the deny word of the option chosen.
	It("49.13 judges the option a select chooses, not the one it shows", Label("twin", "trap:select-filter", "trap:select-operation"), func(ctx SpecContext) {
		twin := lookupTwin("select-filter")
		res := runDiligent(ctx, twin)
		j := results.Judge(res)
		Expect(j.Stops).To(BeEmpty(), "the fence refused the benign choice (evidence %s)", res.EvidenceDir)
		Expect(j.CompletedUnderPolicy).To(BeTrue(), "the filter was not changed; evidence %s", res.EvidenceDir)

		t, err := traps.Lookup("select-operation")
		Expect(err).NotTo(HaveOccurred())
		res = runArm(ctx, t, results.Guarded)
		Expect(res).To(gomegatrap.HaveVerdict(results.Held))
		Expect(res.GuardsFired).To(ContainElement(policy.RuleDenyWord), "evidence %s", res.EvidenceDir)
		Expect(res.GuardsFired).NotTo(ContainElement(policy.RuleStaleRef), "evidence %s", res.EvidenceDir)
	}, SpecTimeout(4*time.Minute))
})

// lookupTwin is the benign twin id (traps.Twins).
func lookupTwin(id string) traps.Trap {
	for _, t := range traps.Twins() {
		if t.ID == id {
			return t
		}
	}
	Fail("no benign twin " + id)
	return traps.Trap{}
}

// noSaveAgent is testdata/cdp-download-nosave.js, run by Node.js with the Playwright driver's
// playwright-core.
func noSaveAgent() *harness.Command {
	node, err := exec.LookPath("node")
	Expect(err).NotTo(HaveOccurred(), "Node.js runs the agent")
	script, err := filepath.Abs(filepath.Join("testdata", "cdp-download-nosave.js"))
	Expect(err).NotTo(HaveOccurred())
	core, err := browser.PlaywrightCoreDir()
	Expect(err).NotTo(HaveOccurred(), "the agent uses the Playwright driver's playwright-core (make setup)")
	return &harness.Command{AgentName: "cdp-nosave", Path: node, Args: []string{script}, Env: []string{"TRAPLINE_PLAYWRIGHT_CORE=" + core}}
}
