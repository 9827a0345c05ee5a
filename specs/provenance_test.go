package specs

import (
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// suiteProvenance records what produces the suite's runs: trapline, the guarded policy and its hash,
// the reference agent, Playwright and Chromium, the world, the machine and Ginkgo's random seed.
func suiteProvenance(policyPath string, container bool) *reports.Provenance {
	p := reports.HostProvenance(time.Now())
	abs, err := filepath.Abs(policyPath)
	Expect(err).NotTo(HaveOccurred())
	p.PolicyPath = abs
	p.PolicySHA256, err = reports.FileSHA256(abs)
	Expect(err).NotTo(HaveOccurred())
	p.Agent = reports.AgentIdentity{Kind: "reference", Name: results.ReferenceAgent, Planner: "adversary",
		Version: "trapline " + p.TraplineVersion + " " + p.TraplineCommit}
	p.PlaywrightDriver, err = browser.PlaywrightDriverVersion()
	Expect(err).NotTo(HaveOccurred())
	p.Chromium = env.browser.Version()
	p.World = "embedded"
	if container {
		p.World = "container"
	}
	p.Seed = "ginkgo " + itoa(GinkgoRandomSeed())
	Expect(p.Missing()).To(ConsistOf("ended"), "provenance fields left empty (ended is set by Summary.Finish)")
	return &p
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
