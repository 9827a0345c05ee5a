package policy

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Patch returns a new policy: p with fragment, a policy fragment in YAML (a mapping of policy
// fields), merged onto p's document. Mappings merge key by key; anything else (a list, a value)
// replaces what p had. The result is parsed and validated like any policy file, named name in its
// errors and as its Source, so a patch cannot half-apply: a fragment that makes the policy invalid
// comes back as Parse's Errors. p itself is not changed.
func Patch(p *Policy, fragment []byte, name string) (*Policy, error) {
	base, err := Marshal(p)
	if err != nil {
		return nil, err
	}
	var doc, patch yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("policy: patch: re-read the policy: %w", err)
	}
	if err := yaml.Unmarshal(fragment, &patch); err != nil {
		return nil, fmt.Errorf("policy: patch: read the fragment: %w", err)
	}
	if len(patch.Content) != 1 || patch.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("policy: patch: a fragment is a mapping of policy fields")
	}
	mergeNode(doc.Content[0], patch.Content[0])
	merged, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("policy: patch: %w", err)
	}
	return Parse(name, merged)
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
