package results

import "testing"

// The arm's two axes (fence × subject) say what UnderTest and Proof said case by case, and every
// arm is the one arm of its axes.
func TestArmAxes(t *testing.T) {
	cases := []struct {
		arm       Arm
		fence     Fence
		subject   Subject
		underTest bool
		proof     Arm
	}{
		{Guarded, FenceGuarded, SubjectAdversary, false, Guarded},
		{Control, FencePermissive, SubjectAdversary, false, Control},
		{Fenced, FenceGuarded, SubjectUnderTest, true, Guarded},
		{Unfenced, FencePermissive, SubjectUnderTest, true, Control},
		{Blackbox, FenceDeployment, SubjectBlackbox, true, Blackbox},
		{"nonsense", "", "", false, "nonsense"},
	}
	for _, c := range cases {
		if c.arm.Fence() != c.fence || c.arm.Subject() != c.subject || c.arm.UnderTest() != c.underTest || c.arm.Proof() != c.proof {
			t.Errorf("%s: fence %q subject %q under test %v proof %s", c.arm, c.arm.Fence(), c.arm.Subject(), c.arm.UnderTest(), c.arm.Proof())
		}
		if c.fence == "" {
			continue
		}
		if a, ok := ArmOf(c.fence, c.subject); !ok || a != c.arm {
			t.Errorf("ArmOf(%s, %s) = %s, %v; want %s", c.fence, c.subject, a, ok, c.arm)
		}
	}
	if a, ok := ArmOf(FenceDeployment, SubjectAdversary); ok {
		t.Errorf("ArmOf(deployment, adversary) = %s: no arm has both", a)
	}
	if len(armAxes) != len(Arms()) {
		t.Errorf("armAxes has %d arms, Arms() %d", len(armAxes), len(Arms()))
	}
}
