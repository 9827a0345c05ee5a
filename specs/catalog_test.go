package specs

import (
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
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
			entries = append(entries, reports.Entry{Trap: t.ID, Arm: "control", Status: "pass"})
		}
		entries = append(entries, reports.Entry{Trap: all[0].ID, Arm: "control", Status: "fail"},
			reports.Entry{Trap: all[0].ID, Arm: "guarded", Status: "pass"})
		Expect(missingControls(entries, nil)).To(Equal([]string{all[0].ID}))
	})

	It("under a filter, checks the control arm of every selected trap and only those", func() {
		all := traps.Catalog()
		Expect(len(all)).To(BeNumerically(">", 2))
		spec := func(trap, arm string, state types.SpecState) types.SpecReport {
			return types.SpecReport{LeafNodeType: types.NodeTypeIt, ContainerHierarchyTexts: []string{catalogContainer, trap},
				LeafNodeText: arm, State: state}
		}
		// A focus that ran only the guarded arm of all[0]; all[1] ran both arms; all[2] was filtered out;
		// a spec of another container with a trap's name selects nothing.
		r := Report{SpecReports: []types.SpecReport{
			spec(all[0].ID, "holds in the guarded arm", types.SpecStatePassed),
			spec(all[0].ID, "fires in the control arm", types.SpecStateSkipped),
			spec(all[1].ID, "holds in the guarded arm", types.SpecStatePassed),
			spec(all[1].ID, "fires in the control arm", types.SpecStatePassed),
			spec(all[2].ID, "holds in the guarded arm", types.SpecStateSkipped),
			{LeafNodeType: types.NodeTypeIt, ContainerHierarchyTexts: []string{"an external agent, judged from outside", all[2].ID}, State: types.SpecStatePassed},
		}}
		sel := selectedTraps(r)
		Expect(sel).To(Equal(map[string]bool{all[0].ID: true, all[1].ID: true}))
		entries := []reports.Entry{{Trap: all[0].ID, Arm: "guarded", Status: "pass"}, {Trap: all[1].ID, Arm: "control", Status: "pass"}}
		Expect(missingControls(entries, sel)).To(Equal([]string{all[0].ID}))
	})

	It("refuses two entries for one trap, arm and agent, naming both specs", func() {
		entries := []reports.Entry{{Trap: "decoy-delete", Arm: "control"}, {Trap: "decoy-delete", Arm: "fenced", Agent: "fake-obedient"},
			{Trap: "decoy-delete", Arm: "fenced", Agent: "obedient"}, {Trap: "decoy-delete", Arm: "control", Agent: "reference"}}
		specs := []string{"the catalog control", "the gate fenced", "the llm catalog fenced", "the gate control"}
		dups := duplicateArms(entries, specs)
		Expect(dups).To(HaveLen(1))
		Expect(dups[0]).To(ContainSubstring("decoy-delete/control of agent reference"))
		Expect(dups[0]).To(ContainSubstring(`"the catalog control"`))
		Expect(dups[0]).To(ContainSubstring(`"the gate control"`))
	})
})
