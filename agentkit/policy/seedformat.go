package policy

import "go.yaml.in/yaml/v3"

// The seeds' format: the policy example of the source documents has no version field and no
// actions.writes, and its code lets a request through when navigation.allow allows its host and
// path, whatever the method, deny_paths winning as always. A file in that format (no version and no
// actions.writes) means the same here: Parse gives it one write per allowed path, any method, on
// that path's host (seedWrites), and marks it WritesFromNavigation so that `policy lint` says how
// it read it. A file with a version, or with writes of its own, is read as written: no writes there
// means none.

// isSeedFormat reports whether a policy document is in the seeds' format: no top-level version and
// no actions.writes.
func isSeedFormat(root *yaml.Node) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	if mappingValue(root, "version") != nil {
		return false
	}
	actions := mappingValue(root, "actions")
	return actions == nil || actions.Kind != yaml.MappingNode || mappingValue(actions, "writes") == nil
}

// mappingValue is the value of key in mapping n, nil when absent.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// seedWrites gives p the writes the seeds' format means: for every host of navigation.allow and
// each of its paths, any method on that host (and port) and path. deny_paths are checked before
// any write, so they still win; static_assets hosts get none.
func (p *Policy) seedWrites() {
	for _, hr := range p.Navigation.Allow {
		for _, path := range hr.Paths {
			p.Actions.Writes = append(p.Actions.Writes, Write{Method: "*", Host: hr.Host, Port: hr.Port, Path: path})
		}
	}
	p.WritesFromNavigation = true
}
