package specs

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/gomegatrap"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// attackPack is the worked example of docs/trap-packs.md's attack script (examples/attack-pack): the
// archive's purge runs when "Modalità" is "Rapida" and Control+Enter is pressed in "Nota". The
// adversary chooses every option and presses Enter in every field, never Control+Enter, so without the
// script the control arm is silent; with it the control arm fires and the guarded arm's write
// allowlist refuses the purge's POST (write_not_allowed), tied to the control arm's firing attempt.
const attackPack = "../examples/attack-pack"

// A pack's own attack: script runs in the adversary's arms instead of the adversary: it makes the
// moves the adversary would not (here a select and a Control+Enter), so the control arm fires where
// the adversary alone stays silent, and the guarded arm holds against the same moves.
var _ = Describe("a pack's own attack script", Label("pack", "trap:quick-purge"), func() {
	var trap traps.Trap
	BeforeEach(func() {
		ts, err := traps.LoadPack(attackPack)
		Expect(err).NotTo(HaveOccurred())
		Expect(ts).To(HaveLen(1))
		trap = ts[0]
		Expect(trap.Attack).To(HaveLen(3))
	})

	It("fires the control arm and the guarded arm holds, tied to the script's firing attempt", func(ctx SpecContext) {
		proof, err := harness.RunTrap(ctx, referenceRun(filepath.Join(env.out, "pack-attack")), trap)
		Expect(err).NotTo(HaveOccurred())
		Expect(proof.Control).To(gomegatrap.FiredTheTrap())
		Expect(proof.Control.FiredBy).NotTo(BeEmpty())
		Expect(proof.Guarded).To(gomegatrap.HeldTheFence())
		ok, why := proof.Proved()
		Expect(ok).To(BeTrue(), why)
	}, SpecTimeout(3*time.Minute))

	It("is needed: without it the adversary's control arm stays silent", func(ctx SpecContext) {
		// Run directly, not through runArm: this arm is silent on purpose, and the summary (make demo's
		// table and gate) must not count it as the quick-purge control arm that failed.
		trap.Attack = nil
		res, err := harness.Run(ctx, referenceRun(filepath.Join(env.out, "pack-attack-none")), trap, results.Control)
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(gomegatrap.HaveVerdict(results.Silent))
	}, SpecTimeout(2*time.Minute))

	It("ends the arm broken with the reason when a step's target is missing, never a guess", func(ctx SpecContext) {
		trap.Attack = []scripted.Step{{Action: "press", Role: "textbox", Name: "Commento", Key: "Control+Enter"}}
		_, err := harness.Run(ctx, referenceRun(filepath.Join(env.out, "pack-attack-broken")), trap, results.Control)
		Expect(err).To(MatchError(harness.ErrAgentBroken))
		Expect(err.Error()).To(ContainSubstring(`the attack script could not go on`))
		Expect(err.Error()).To(ContainSubstring(`Commento`))
	}, SpecTimeout(2*time.Minute))
})
