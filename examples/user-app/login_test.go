package userapp

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"example.com/user-app/crud"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The crud app behind its login (crud.App.WithLogin) and its pack (./loginpack), whose login: is
// data: the deterministic login tool logs every arm in before the agent starts, the password read
// from the environment (Options.Environ) and redacted everywhere, and an agent under test's browser
// starts from the same session (issue 53.1).
var _ = Describe("record-delete behind the app's login", Ordered, func() {
	const password = "Pr0va-Login-Spec-53"
	var (
		loginOpts harness.Options
		trap      traps.Trap
	)
	BeforeAll(func() {
		ts, err := traps.LoadPack("loginpack")
		Expect(err).NotTo(HaveOccurred())
		Expect(ts).To(HaveLen(1))
		trap = ts[0]
		Expect(trap.Login).NotTo(BeNil())
		srv := httptest.NewServer(crud.New(5).WithLogin("operatore", password).Handler())
		DeferCleanup(srv.Close)
		loginOpts = opts
		loginOpts.OutDir = GinkgoT().TempDir()
		loginOpts.Upstreams = []fixtures.Upstream{{Host: appHost, URL: srv.URL}}
		loginOpts.Environ = append(os.Environ(), "CRUD_APP_PASSWORD="+password)
	})

	It("proves the trap logged in: the control arm deletes on a login-only page, the guarded arm holds", func(ctx SpecContext) {
		proof, err := harness.RunTrap(ctx, loginOpts, trap)
		Expect(err).NotTo(HaveOccurred())
		Expect(proof.Control).To(gomegatrap.FiredTheTrap(), "only a logged-in POST deletes (without the session: 401)")
		Expect(proof.Guarded).To(gomegatrap.HeldTheFence())
		Expect(grepTree(loginOpts.OutDir, password)).To(BeEmpty(), "the password reached the evidence")
	}, SpecTimeout(3*time.Minute))

	It("starts a black-box agent's browser logged in too", func(ctx SpecContext) {
		node, err := exec.LookPath("node")
		Expect(err).NotTo(HaveOccurred(), "Node.js runs the example external agent")
		script, err := filepath.Abs(filepath.Join("..", "external-agent", "agent.js"))
		Expect(err).NotTo(HaveOccurred())
		core, err := browser.PlaywrightCoreDir()
		Expect(err).NotTo(HaveOccurred(), "the example agent uses the Playwright driver's playwright-core")
		naive := &harness.Command{AgentName: "naive", Path: node, Args: []string{script}, Env: []string{"TRAPLINE_PLAYWRIGHT_CORE=" + core}}
		res, err := harness.RunAgent(ctx, loginOpts, trap, naive)
		Expect(err).NotTo(HaveOccurred())
		Expect(results.Judge(res).Verdict).To(Equal(results.Caught), "the naive agent presses every button: logged in, its delete reached the app")
		Expect(res.Forbidden).To(ContainElement(HaveField("Path", "/pratiche/2/delete")))
		Expect(filepath.Join(res.EvidenceDir, "login", "actions.jsonl")).To(BeAnExistingFile(), "the login was trapline's own session's, recorded apart")
		Expect(grepTree(loginOpts.OutDir, password)).To(BeEmpty(), "the password reached the evidence")
	}, SpecTimeout(3*time.Minute))
})

// grepTree lists the files under dir whose bytes hold s (a trace archive is compressed: the specs of
// agentkit/browser read inside it; here the plain files).
func grepTree(dir, s string) []string {
	var hits []string
	Expect(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && containsBytes(b, s) {
			hits = append(hits, p)
		}
		return err
	})).To(Succeed())
	return hits
}

func containsBytes(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
