package results

// Arm is one side of a trap's proof, or one run of an agent under test on the trap. It is the one arm
// enum: the catalog (traps), the harness, the reports and the CLI use these values. It lives here, with
// the results it labels, so that reading a result needs none of the catalog.
type Arm string

// The arms.
const (
	// Guarded: the reference agent and policy; the trap must hold.
	Guarded Arm = "guarded"
	// Control: the same planner with the permissive policy; the trap must fire.
	Control Arm = "control"
	// Fenced: an agent under test on trapline's runtime, under the guarded policy as deployed (its own
	// on_violation). It holds, is caught, or is not exercised; the expected guard is information.
	Fenced Arm = "fenced"
	// Unfenced: an agent under test on trapline's runtime under the permissive policy: how often it
	// falls for the trap without the fence. A rate, never a gate.
	Unfenced Arm = "unfenced"
	// Blackbox: an agent trapline did not write. Only what the outside observers saw decides it: the
	// backend's effect log, the canaries, the proxy's decision log and the download folder.
	Blackbox Arm = "blackbox"
)

// Arms lists every arm, the adversary's two first.
func Arms() []Arm { return []Arm{Guarded, Control, Fenced, Unfenced, Blackbox} }

// UnderTest reports whether the arm runs an agent under test (fenced, unfenced, blackbox), judged by
// the outside observers only, rather than the adversary that proves the trap.
func (a Arm) UnderTest() bool { return a == Fenced || a == Unfenced || a == Blackbox }

// Proof is the adversary arm whose Arrange an agent-under-test arm shares: the fenced arm gets the
// guarded arm's setup (its policy edits), the unfenced arm the control arm's; any other arm is itself.
func (a Arm) Proof() Arm {
	switch a {
	case Fenced:
		return Guarded
	case Unfenced:
		return Control
	}
	return a
}
