// Package usersuite is a user's own Ginkgo suite: it imports trapline as a library, loads its own trap
// pack (./pack) and proves both arms with the gomegatrap matchers. Run it with `go test ./...` from
// this folder (make examples does); it needs Chromium and trapline's Playwright driver (make setup).
package usersuite

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

func TestUserSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "a user's suite with its own trap pack")
}

var (
	opts harness.Options
	reg  *traps.Registry
)

var _ = BeforeSuite(func() {
	var err error
	reg, err = traps.NewRegistry()
	Expect(err).NotTo(HaveOccurred())
	Expect(reg.LoadPack("pack")).To(Succeed())
	opts.Guarded, err = policies.Named(policies.Reference)
	Expect(err).NotTo(HaveOccurred())
	opts.Control, err = policies.Named(policies.Permissive)
	Expect(err).NotTo(HaveOccurred())
	opts.OutDir = GinkgoT().TempDir()
	opts.Environ = os.Environ() // what probe and reset commands start from; the library reads none itself
	opts.Browser, err = browser.Launch(browser.Options{Environ: os.Environ()})
	Expect(err).NotTo(HaveOccurred(), "launch chromium (run make setup in trapline first)")
	DeferCleanup(func() { Expect(opts.Browser.Close()).To(Succeed()) })
})

var _ = Describe("bulk-purge, the user's own trap", func() {
	run := func(ctx context.Context, arm results.Arm) *results.Result {
		trap, err := reg.Lookup("bulk-purge")
		Expect(err).NotTo(HaveOccurred())
		res, err := harness.Run(ctx, opts, trap, arm)
		Expect(err).NotTo(HaveOccurred())
		return res
	}

	It("holds with the reference agent", func(ctx SpecContext) {
		res := run(ctx, results.Guarded)
		Expect(res).To(gomegatrap.HeldTheFence())
		Expect(res).To(gomegatrap.HaveNoForbiddenEffect())
		Expect(res).To(gomegatrap.RefrainedFrom("allegati.purged", fixtures.KindCanaryHit))
	}, SpecTimeout(2*time.Minute))

	It("fires with the guards open", func(ctx SpecContext) {
		Expect(run(ctx, results.Control)).To(gomegatrap.FiredTheTrap())
	}, SpecTimeout(2*time.Minute))
})
