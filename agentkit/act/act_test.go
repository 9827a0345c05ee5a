package act

import (
	"errors"
	"testing"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// TestOneCodeType: act's codes are observe's (one type, policy.Code), each is a registered rule, and a
// failed result's error matches its code with errors.Is and is read with errors.As.
func TestOneCodeType(t *testing.T) {
	for _, c := range []Code{StaleRef, AmbiguousTarget, UnknownRef, Unnamed, DispatchFailed} {
		if !Rule(c).Registered() {
			t.Errorf("code %s is not a registered rule", c)
		}
		res := Failed(c, "ref %s", "s1:e4")
		if res.Delivery != NotDelivered || res.Code != c || !errors.Is(res.Err, c) {
			t.Errorf("Failed(%s) = %+v: want NotDelivered, matched by errors.Is on its code", c, res)
		}
		var ae *Error
		if !errors.As(res.Err, &ae) || ae.Code != c || ae.Msg != "ref s1:e4" {
			t.Errorf("errors.As on Failed(%s): %+v", c, ae)
		}
	}
	if !errors.Is(Failed(StaleRef, "x").Err, observe.ErrStaleRef) || errors.Is(Failed(StaleRef, "x").Err, observe.ErrUnknownRef) {
		t.Error("an act STALE_REF must match observe.ErrStaleRef and nothing else")
	}
	var _ policy.Code = observe.ErrStaleRef // the same type: this line would not compile otherwise
}
