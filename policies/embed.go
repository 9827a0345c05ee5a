// Package policies holds trapline's default policies, embedded in every binary so that no command
// depends on its working directory: reference (the guarded arm's fence), permissive (the control arm:
// every guard open), browser-agent-policy (the seeds' own example, byte for byte: no version and no
// writes, read in the seeds' format) and annotated (every field of the schema with its choices, for
// the world's portal). Select one by name with Named, or by name or path with Resolve.
package policies

import (
	"embed"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
)

//go:embed *.yml
var files embed.FS

// The names of the embedded policies.
const (
	// Reference is the guarded arm's default policy (reference.yml).
	Reference = "reference"
	// Permissive is the control arm's default policy (permissive.yml).
	Permissive = "permissive"
)

// Names lists the embedded policies by name, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yml"))
	}
	sort.Strings(out)
	return out
}

// Bytes returns the YAML of the embedded policy name.
func Bytes(name string) ([]byte, error) {
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("policy %q: no embedded policy of that name (have %s)", name, strings.Join(Names(), ", "))
	}
	return files.ReadFile(name + ".yml")
}

// Named parses the embedded policy name; its Source is "embedded:<name>".
func Named(name string) (*policy.Policy, error) {
	b, err := Bytes(name)
	if err != nil {
		return nil, err
	}
	return policy.Parse("embedded:"+name+".yml", b)
}

// Resolve loads a policy given by name or path: a name without a slash or a .yml/.yaml suffix is an
// embedded policy; anything else is a file. A file that exists wins over an embedded name, so a
// policy file called "reference" in the working folder is still reachable as ./reference.
func Resolve(nameOrPath string) (*policy.Policy, error) {
	if isName(nameOrPath) {
		if _, err := os.Stat(nameOrPath); err != nil {
			return Named(nameOrPath)
		}
	}
	return policy.Load(nameOrPath)
}

func isName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\`) && !strings.HasSuffix(s, ".yml") && !strings.HasSuffix(s, ".yaml")
}
