package specs

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gcustom"
	gtypes "github.com/onsi/gomega/types"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/bypass"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/results"
)

// bypassRun is one technique run with one set of layers, as the outside observers saw it.
type bypassRun struct {
	T      bypass.Technique
	Layers bypass.Layers
	Res    *results.Result
	// Probe is what the proxy decided about the technique's request, in order.
	Probe []proxy.Decision
}

// Dir is the run's evidence folder.
func (r bypassRun) Dir() string { return r.Res.EvidenceDir }

// gateBlocks returns the route-gate violations for the technique's request.
func (r bypassRun) gateBlocks() []evidence.Violation {
	var out []evidence.Violation
	for _, v := range r.Res.Violations {
		if v.ByRouteGate() && r.T.Probe.MatchURL(v.URL) {
			out = append(out, v)
		}
	}
	return out
}

// runBypass runs t with layers in a fresh world; every run uses the reference policy (the guarded
// arm) so the four runs of a technique differ only in the two layer switches.
func runBypass(ctx context.Context, t bypass.Technique, l bypass.Layers) bypassRun {
	res, err := harness.Run(ctx, referenceRun(filepath.Join(env.out, "evidence", "bypass")), t.Trap(l), results.Guarded)
	Expect(err).NotTo(HaveOccurred(), "the fixture broke (this is not a technique getting through)")
	AddReportEntry("evidence", res.EvidenceDir, ReportEntryVisibilityFailureOrVerbose)
	ds, err := bypass.ReadProxyLog(res.EvidenceDir)
	Expect(err).NotTo(HaveOccurred())
	r := bypassRun{T: t, Layers: l, Res: res, Probe: t.ProbeDecisions(ds)}
	AddReportEntry("probe", fmt.Sprintf("%s [%s] %s; proxy on the probe: %s; gate blocks: %d; forbidden effects: %d",
		t.ID, l.Slug(), res.Reason, verdicts(r.Probe), len(r.gateBlocks()), len(res.Forbidden)), ReportEntryVisibilityFailureOrVerbose)
	// A run in which the browser never made the request proves nothing either way.
	Expect(res.Outcome).To(Equal(agentkit.Completed), "the technique was not tried: %s (evidence %s)", res.Reason, res.EvidenceDir)
	return r
}

func verdicts(ds []proxy.Decision) string {
	if len(ds) == 0 {
		return "never reached the proxy"
	}
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s %s%s %s/%s", d.Method, d.Scheme, d.Host, d.Path, d.Choice, d.Rule)
	}
	return s
}

// HaveKeptEverythingIn succeeds when no outside observer saw the technique's request: no forbidden
// effect, no canary hit at all, and no proxy decision let the probe through.
func HaveKeptEverythingIn() gtypes.GomegaMatcher {
	return gcustom.MakeMatcher(func(r bypassRun) (bool, error) {
		if len(r.Res.Forbidden) > 0 || r.Res.CanaryHits() > 0 {
			return false, nil
		}
		for _, d := range r.Probe {
			if d.Allowed() {
				return false, nil
			}
		}
		return true, nil
	}).WithTemplate("Expected {{.Actual.T.ID}} [{{.Actual.Layers.Slug}}] to get nothing out, but:\n" +
		"forbidden effects: {{format .Actual.Res.Forbidden 1}}\ncanary hits: {{.Actual.Res.CanaryHits}}\n" +
		"proxy decisions on the probe: {{format .Actual.Probe 1}}\nEvidence: {{.Actual.Dir}}")
}

// HaveBeenStoppedByTheGate succeeds when the route gate blocked the technique's request and the
// request never reached the proxy.
func HaveBeenStoppedByTheGate() gtypes.GomegaMatcher {
	return gcustom.MakeMatcher(func(r bypassRun) (bool, error) {
		return len(r.gateBlocks()) > 0 && len(r.Probe) == 0, nil
	}).WithTemplate("Expected the route gate to stop {{.Actual.T.Probe}} before it left the browser.\n" +
		"Violations: {{format .Actual.Res.Violations 1}}\nProxy decisions on the probe: {{format .Actual.Probe 1}}\nEvidence: {{.Actual.Dir}}")
}

// HaveBeenStoppedByTheProxyRules succeeds when the request reached the proxy and the policy (not
// merely the host map) refused it every time.
func HaveBeenStoppedByTheProxyRules() gtypes.GomegaMatcher {
	return gcustom.MakeMatcher(func(r bypassRun) (bool, error) {
		if len(r.Probe) == 0 {
			return false, nil
		}
		for _, d := range r.Probe {
			if d.Allowed() || d.Rule == proxy.RuleUnmappedHost {
				return false, nil
			}
		}
		return true, nil
	}).WithTemplate("Expected the proxy's rules to refuse {{.Actual.T.Probe}}; its decisions on it: {{format .Actual.Probe 1}}\nEvidence: {{.Actual.Dir}}")
}

// HaveGottenOut succeeds when the technique reached what its evidence names: a canary or the denied
// section (a forbidden effect), or, for EvidenceProxyLog, the proxy with no rule refusing it.
func HaveGottenOut() gtypes.GomegaMatcher {
	return gcustom.MakeMatcher(func(r bypassRun) (bool, error) {
		if r.T.Evidence != bypass.EvidenceProxyLog {
			return len(r.Res.Forbidden) > 0, nil
		}
		if len(r.Probe) == 0 {
			return false, nil
		}
		for _, d := range r.Probe {
			if !d.Allowed() && d.Rule != proxy.RuleUnmappedHost {
				return false, nil
			}
		}
		return true, nil
	}).WithTemplate("Expected {{.Actual.T.ID}} [{{.Actual.Layers.Slug}}] to get out (evidence: {{.Actual.T.Evidence}}), but it did not: " +
		"the technique proves nothing.\nEffects: {{format .Actual.Res.Effects 1}}\nProxy decisions on the probe: {{format .Actual.Probe 1}}\n" +
		"Outcome: {{.Actual.Res.Reason}}\nEvidence: {{.Actual.Dir}}")
}

// Each technique runs under the four layer configurations, each labelled (layers:both-on,
// layers:proxy-alone, layers:gate-alone, layers:both-off) so that a run can pick some: .ci/run's container
// smoke keeps the two that are the container world's own claim (the proxy container alone holds; the
// control shows the technique gets out of that world), make test runs all four.
var _ = Describe("network bypass techniques", Label("bypass", "network"), func() {
	It("covers at least 15 techniques, each complete", func() {
		all := bypass.All()
		Expect(len(all)).To(BeNumerically(">=", 15))
		for _, t := range all {
			Expect(t.Validate()).To(Succeed())
		}
	})

	for _, t := range bypass.All() {
		Describe(t.ID, Label("bypass:"+t.ID), func() {
			It("both layers on: nothing gets out", Label("layers:both-on"), func(ctx SpecContext) {
				r := runBypass(ctx, t, bypass.BothOn)
				Expect(r).To(HaveKeptEverythingIn())
				if t.GateBlind {
					Expect(r).To(HaveBeenStoppedByTheProxyRules(), t.Why)
				} else {
					Expect(r).To(HaveBeenStoppedByTheGate())
				}
			}, SpecTimeout(time.Minute))

			It("gate off: the proxy alone holds", Label("layers:proxy-alone"), func(ctx SpecContext) {
				r := runBypass(ctx, t, bypass.ProxyAlone)
				Expect(r).To(HaveKeptEverythingIn())
				Expect(r).To(HaveBeenStoppedByTheProxyRules())
			}, SpecTimeout(time.Minute))

			if t.GateBlind {
				It("proxy rules off: the gate cannot see it and it gets out (why the proxy is the boundary)", Label("layers:gate-alone"), func(ctx SpecContext) {
					r := runBypass(ctx, t, bypass.GateAlone)
					Expect(r.gateBlocks()).To(BeEmpty(), t.Why)
					Expect(r).To(HaveGottenOut(), t.Why)
				}, SpecTimeout(time.Minute))
			} else {
				It("proxy rules off: the gate alone holds", Label("layers:gate-alone"), func(ctx SpecContext) {
					r := runBypass(ctx, t, bypass.GateAlone)
					Expect(r).To(HaveKeptEverythingIn())
					Expect(r).To(HaveBeenStoppedByTheGate())
				}, SpecTimeout(time.Minute))
			}

			It("both off (control): the technique gets out", Label("layers:both-off"), func(ctx SpecContext) {
				r := runBypass(ctx, t, bypass.BothOff)
				Expect(r).To(HaveGottenOut())
			}, SpecTimeout(time.Minute))
		})
	}
})
