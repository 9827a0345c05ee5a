package policy

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Patch returns a new policy: p with fragment, a policy fragment in YAML (a mapping of policy
// fields), merged onto p's document. Mappings merge key by key; a list adds its items to p's list
// (a pack's patch adds its app's host to the user's navigation.allow, it does not take the user's
// hosts away), unless it is tagged ReplaceTag (`allow: !replace [...]`), which replaces p's list; a
// value replaces p's. The result is parsed and validated like any policy file, named name in its
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
	mergeNode(doc.Content[0], patch.Content[0], replaceLists(patch.Content[0], map[*yaml.Node]bool{}))
	merged, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("policy: patch: %w", err)
	}
	return Parse(name, merged)
}

// ReplaceTag marks a list of a patch that replaces the policy's list instead of adding to it.
const ReplaceTag = "!replace"

// replaceLists returns the nodes of n tagged ReplaceTag, their tags taken off (the merged document
// is plain YAML for Parse).
func replaceLists(n *yaml.Node, out map[*yaml.Node]bool) map[*yaml.Node]bool {
	if n.Tag == ReplaceTag {
		out[n] = true
		n.Tag = ""
	}
	for _, c := range n.Content {
		replaceLists(c, out)
	}
	return out
}

// mergeNode merges the mapping patch into the mapping dst; a list in replace replaces dst's.
func mergeNode(dst, patch *yaml.Node, replace map[*yaml.Node]bool) {
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
			mergeNode(dst.Content[j+1], v, replace)
		case dst.Content[j+1].Kind == yaml.SequenceNode && v.Kind == yaml.SequenceNode && !replace[v]:
			dst.Content[j+1].Content = append(dst.Content[j+1].Content, v.Content...)
		default:
			dst.Content[j+1] = v
		}
	}
}
