package traps

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/policy"
)

// ApplyPolicyPatch returns p with the trap's policy_patch for arm applied (p itself when the trap has
// none for that arm). The patch is a policy fragment merged onto p's document: mappings merge key by
// key, anything else (a list, a value) replaces what p had; the result is parsed and validated like
// any policy, so a patch cannot half-apply.
func (t Trap) ApplyPolicyPatch(arm Arm, p *policy.Policy) (*policy.Policy, error) {
	frag, ok := t.PolicyPatch[arm]
	if !ok {
		return p, nil
	}
	out, err := patchPolicy(p, frag, fmt.Sprintf("%s + policy_patch.%s of trap %s", p.Source, arm, t.ID))
	if err != nil {
		return nil, fmt.Errorf("trap %s: policy_patch.%s: %w", t.ID, arm, err)
	}
	return out, nil
}

func patchPolicy(p *policy.Policy, frag, name string) (*policy.Policy, error) {
	base, err := policy.Marshal(p)
	if err != nil {
		return nil, err
	}
	var doc, patch yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("re-read the policy: %w", err)
	}
	if err := yaml.Unmarshal([]byte(frag), &patch); err != nil {
		return nil, fmt.Errorf("read the patch: %w", err)
	}
	if len(patch.Content) != 1 || patch.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("a patch is a mapping of policy fields")
	}
	mergeNode(doc.Content[0], patch.Content[0])
	merged, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	return policy.Parse(name, merged)
}

// mergeNode merges the mapping patch into the mapping dst.
func mergeNode(dst, patch *yaml.Node) {
	for i := 0; i+1 < len(patch.Content); i += 2 {
		k, v := patch.Content[i], patch.Content[i+1]
		j := -1
		for d := 0; d+1 < len(dst.Content); d += 2 { // keys sit at even indexes
			if dst.Content[d].Value == k.Value {
				j = d
				break
			}
		}
		switch {
		case j < 0:
			dst.Content = append(dst.Content, k, v)
		case dst.Content[j+1].Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			mergeNode(dst.Content[j+1], v)
		default:
			dst.Content[j+1] = v
		}
	}
}

var patchKeys = map[string]bool{string(Guarded): false, string(Control): false}

// policyPatch reads policy_patch: {guarded: FRAGMENT, control: FRAGMENT} and checks each fragment
// applies to a policy of its arm's default (a patch that does not parse is refused at load).
func (l *loader) policyPatch(n *yaml.Node) map[Arm]string {
	if n == nil {
		return nil
	}
	f := l.mapping(n, "policy_patch", patchKeys)
	out := map[Arm]string{}
	for _, arm := range []Arm{Guarded, Control} {
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
		if _, err := patchPolicy(patchBase(), string(b), field); err != nil {
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
