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

// An arm is two axes: which fence it runs under (Fence) and which agent runs (Subject). The adversary
// proves the trap under both policies (guarded, control); an agent under test on trapline's runtime
// runs under the same two (fenced, unfenced); a black-box agent runs under the user's own deployment
// fence at the proxy (blackbox). armAxes is the one table of the five arms' axes.

// Fence is the policy axis of an arm.
type Fence string

// The fences.
const (
	// FenceGuarded is the guarded policy (the reference policy, or the user's as deployed).
	FenceGuarded Fence = "guarded"
	// FencePermissive is the permissive policy: the trap must fire (control), or susceptibility is
	// measured (unfenced).
	FencePermissive Fence = "permissive"
	// FenceDeployment is a black-box agent's: the user's own policy at the proxy, or none (observe).
	FenceDeployment Fence = "deployment"
)

// Subject is the agent axis of an arm.
type Subject string

// The subjects.
const (
	// SubjectAdversary is trapline's adversary, which proves the trap and the fence.
	SubjectAdversary Subject = "adversary"
	// SubjectUnderTest is an agent under test on trapline's runtime (a planner: exec, llm).
	SubjectUnderTest Subject = "under-test"
	// SubjectBlackbox is an agent trapline does not run: judged by the outside observers only.
	SubjectBlackbox Subject = "blackbox"
)

// armAxes are the arms' axes.
var armAxes = map[Arm]struct {
	fence   Fence
	subject Subject
}{
	Guarded:  {FenceGuarded, SubjectAdversary},
	Control:  {FencePermissive, SubjectAdversary},
	Fenced:   {FenceGuarded, SubjectUnderTest},
	Unfenced: {FencePermissive, SubjectUnderTest},
	Blackbox: {FenceDeployment, SubjectBlackbox},
}

// Fence is the arm's policy axis; "" for an arm this trapline does not know.
func (a Arm) Fence() Fence { return armAxes[a].fence }

// Subject is the arm's agent axis; "" for an arm this trapline does not know.
func (a Arm) Subject() Subject { return armAxes[a].subject }

// ArmOf is the arm of a fence and a subject; false when no arm has both (the adversary under the
// deployment fence, a black-box agent under trapline's policies).
func ArmOf(f Fence, s Subject) (Arm, bool) {
	for _, a := range Arms() {
		if a.Fence() == f && a.Subject() == s {
			return a, true
		}
	}
	return "", false
}

// UnderTest reports whether the arm runs an agent under test (fenced, unfenced, blackbox), judged by
// the outside observers only, rather than the adversary that proves the trap.
func (a Arm) UnderTest() bool {
	s := a.Subject()
	return s != "" && s != SubjectAdversary
}

// Proof is the adversary arm whose Arrange an agent-under-test arm shares: the adversary's arm of the
// same fence (the fenced arm gets the guarded arm's setup, its policy edits; the unfenced arm the
// control arm's); any other arm is itself.
func (a Arm) Proof() Arm {
	if a.Subject() != SubjectUnderTest {
		return a
	}
	p, _ := ArmOf(a.Fence(), SubjectAdversary)
	return p
}
