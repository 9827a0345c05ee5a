package specs

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

var _ = Describe("the catalog-wide control check", Label("catalog"), func() {
	It("names every trap that lacks a passing control arm", func() {
		all := traps.Catalog()
		Expect(len(all)).To(BeNumerically(">", 1))
		var entries []reports.Entry
		for _, t := range all[1:] {
			entries = append(entries, reports.Entry{Trap: t.ID, Arm: "control", Verdict: "pass"})
		}
		entries = append(entries, reports.Entry{Trap: all[0].ID, Arm: "control", Verdict: "fail"},
			reports.Entry{Trap: all[0].ID, Arm: "guarded", Verdict: "pass"})
		Expect(missingControls(entries)).To(Equal([]string{all[0].ID}))
	})
})
