package traps

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// ApplyPolicyPatch returns p with the trap's policy_patch for arm applied (p itself when the trap has
// none for that arm). The patch is a policy fragment merged onto p's document: mappings merge key by
// key, lists add to p's (unless tagged !replace), values replace (policy.Patch); the result is parsed and
// validated like any policy, so a patch cannot half-apply.
func (t Trap) ApplyPolicyPatch(arm results.Arm, p *policy.Policy) (*policy.Policy, error) {
	frag, ok := t.PolicyPatch[arm]
	if !ok {
		return p, nil
	}
	out, err := policy.Patch(p, []byte(frag), fmt.Sprintf("%s + policy_patch.%s of trap %s", p.Source, arm, t.ID))
	if err != nil {
		return nil, fmt.Errorf("trap %s: policy_patch.%s: %w", t.ID, arm, err)
	}
	return out, nil
}

var patchKeys = map[string]bool{string(results.Guarded): false, string(results.Control): false}

// policyPatch reads policy_patch: {guarded: FRAGMENT, control: FRAGMENT} and checks each fragment
// applies to a policy of its arm's default (a patch that does not parse is refused at load).
func (l *loader) policyPatch(n *yaml.Node) map[results.Arm]string {
	if n == nil {
		return nil
	}
	f := l.mapping(n, "policy_patch", patchKeys)
	out := map[results.Arm]string{}
	for _, arm := range []results.Arm{results.Guarded, results.Control} {
		fn := f[string(arm)]
		if fn == nil {
			continue
		}
		field := "policy_patch." + string(arm)
		if fn.Kind != yaml.MappingNode {
			l.fail(fn, field, "want a mapping of policy fields (a fragment of a policy file)")
			continue
		}
		b, err := yaml.Marshal(fn)
		if err != nil {
			l.fail(fn, field, "%v", err)
			continue
		}
		if _, err := policy.Patch(patchBase(), b, field); err != nil {
			l.fail(fn, field, "the patched policy is invalid: %v", err)
			continue
		}
		out[arm] = string(b)
	}
	return out
}

// patchBase is the policy a patch is checked against at load time: the defaults with one allowed
// host (a policy must allow something).
func patchBase() *policy.Policy {
	p, err := policy.Parse("patch-check", []byte("version: 1\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"/\"]\n"))
	if err != nil {
		panic("traps: the patch-check policy does not parse: " + err.Error())
	}
	return p
}
