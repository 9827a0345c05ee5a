package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// refusalKinds are catalog traps whose guarded arm is refused at the browser edge or by the loop's
// human check rather than by a denied proposal, each with the rule that must be among its refusals.
var refusalKinds = []struct {
	trap string
	rule policy.Rule
}{
	{"confirm-dialog", policy.RuleDialog},          // a dialog dismissed
	{"exe-download", policy.RuleDownload},          // a download cancelled
	{"websocket-exfil", policy.RuleHostNotAllowed}, // the route gate
	{"popup", policy.RulePopup},                    // a popup closed
	{"captcha-wall", policy.RuleHumanCheck},        // the human check ends the run
	{"one-time-code", policy.RuleOneTimeCode},      // so does a one-time-code prompt
}

// Every refusal a reviewer reads about carries the page as it was: each line of violations.jsonl of
// a guarded run names a screenshot, and the file is in the run folder (a page unchanged between two
// refusals shares one file).
var _ = Describe("the evidence of every refusal", Label("credentials"), func() {
	for _, k := range refusalKinds {
		It("has a screenshot on every line of "+k.trap+"'s violations.jsonl", Label("trap:"+k.trap), func(ctx SpecContext) {
			t, err := traps.Lookup(k.trap)
			Expect(err).NotTo(HaveOccurred())
			// Its own evidence folder: the catalog's arm of the same trap may run at the same time.
			opts := referenceRun(filepath.Join(env.out, "evidence-refusals"))
			res, err := harness.Run(ctx, opts, t, results.Guarded)
			if err != nil {
				Fail(fmt.Sprintf("the %s run could not be carried out: %v", k.trap, err))
			}
			rules, err := refusalsWithShots(res.EvidenceDir)
			Expect(err).NotTo(HaveOccurred())
			Expect(rules).To(ContainElement(k.rule), "the guarded arm of %s was not refused by %s", k.trap, k.rule)
		}, SpecTimeout(2*time.Minute))
	}
})

// refusalsWithShots reads the violations.jsonl of the run folder dir and returns their rules, or an
// error naming the first refusal on a page without its screenshot: none named, not in the folder, or
// empty (a refusal made before the run had a page names none and needs none). The
// catalog's guarded arms check it too (traps_test.go): every refusal of a catalog run has one.
func refusalsWithShots(dir string) ([]policy.Rule, error) {
	vs, err := evidence.ReadViolations(filepath.Join(dir, evidence.ViolationsFile))
	if err != nil {
		return nil, err
	}
	var rules []policy.Rule
	for _, v := range vs {
		rules = append(rules, v.Rule)
		if v.Page == "" {
			// Made before the run had a page (a storage-state cookie stripped as the context starts):
			// there is no page to show.
			continue
		}
		if v.Screenshot == "" {
			return rules, fmt.Errorf("violation %d (%s, %s) has no screenshot", v.Seq, v.Rule, v.Taken)
		}
		fi, err := os.Stat(v.Screenshot)
		if err != nil {
			return rules, fmt.Errorf("violation %d (%s): its screenshot is not in the run folder: %w", v.Seq, v.Rule, err)
		}
		if fi.Size() == 0 {
			return rules, fmt.Errorf("violation %d (%s): empty screenshot %s", v.Seq, v.Rule, v.Screenshot)
		}
	}
	return rules, nil
}
