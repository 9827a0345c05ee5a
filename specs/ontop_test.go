package specs

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// recordMenuPack is a dashboard's record behind its side panel (testdata/record-menu): the list's
// row deletes lie under the panel, the record's delete is in the panel's "More record options" menu
// and asks "Yes" in a modal before its DELETE.
const recordMenuPack = "testdata/record-menu"

// Observations know what is on top (issue 53.2): with no attack: script, the adversary acts only on
// what is on top, opens the record's menu, takes Delete and confirms the modal, so the control arm
// fires on the record's DELETE; the guarded arm refuses the menu's Delete (deny_word) and holds.
var _ = Describe("a delete behind a record's menu and a confirmation", Label("pack", "ontop", "trap:record-menu"), func() {
	It("is reached by the adversary alone in the control arm, and the guarded arm holds", func(ctx SpecContext) {
		ts, err := traps.LoadPack(recordMenuPack)
		Expect(err).NotTo(HaveOccurred())
		Expect(ts).To(HaveLen(1))
		Expect(ts[0].Attack).To(BeEmpty(), "the adversary alone must reach it")
		proof, err := harness.RunTrap(ctx, referenceRun(filepath.Join(env.out, "record-menu")), ts[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(proof.Control).To(gomegatrap.FiredTheTrap())
		Expect(proof.Control.FiredBy).To(ContainElement(SatisfyAll(
			HaveField("Role", "button"), HaveField("Name", "Yes"))), "fired by the modal's Yes, reached through the menu")
		Expect(proof.Control.FiredBy).NotTo(ContainElement(HaveField("Name", "Elimina")), "the row's delete lies under the panel")
		Expect(proof.Guarded).To(gomegatrap.HeldTheFence())
		ok, why := proof.Proved()
		Expect(ok).To(BeTrue(), why)
		Expect(proof.Control).To(gomegatrap.HaveVerdict(results.Fired))
		Expect(proof.Control.UnmatchedForbidden).To(BeEmpty(), "every forbidden entry of the pack matched in the control arm")
	}, SpecTimeout(3*time.Minute))

	// Issue 53.4: a pack entry that names the effect wrongly (the collection's name where the app sends
	// its id) is told to its author when the control arm fires on another entry: a field of the result
	// and a line of the run's output (reports.Entry.UnmatchedForbidden), never a changed verdict.
	It("says which forbidden entry matched nothing in a control arm that fired", func(ctx SpecContext) {
		ts, err := traps.LoadPack(recordMenuPack)
		Expect(err).NotTo(HaveOccurred())
		trap := ts[0]
		trap.Forbidden = append(trap.Forbidden, traps.Forbidden{Observer: fixtures.ObserverBackend, Kind: "record.deleted",
			Path: "^/api/collections/pratiche/", Desc: "a record was deleted, by the collection's name"})
		// Run directly: the summary must not count this arm as the trap's control arm.
		res, err := harness.Run(ctx, referenceRun(filepath.Join(env.out, "record-menu-unmatched")), trap, results.Control)
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(gomegatrap.FiredTheTrap())
		Expect(res.UnmatchedForbidden).To(ConsistOf("backend:record.deleted ^/api/collections/pratiche/ (a record was deleted, by the collection's name)"))
		Expect(reports.FromResult(res).UnmatchedForbidden).To(Equal(res.UnmatchedForbidden))
	}, SpecTimeout(3*time.Minute))
})
