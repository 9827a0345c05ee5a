package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestEveryEmbeddedPolicyParses(t *testing.T) {
	names := Names()
	for _, want := range []string{Reference, Permissive} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Fatalf("embedded policies %v lack %q", names, want)
		}
	}
	for _, n := range names {
		if _, err := Named(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestResolveByNameFromAnotherFolderAndByPath(t *testing.T) {
	t.Chdir(t.TempDir())
	p, err := Resolve("reference")
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != "embedded:reference.yml" {
		t.Errorf("source %q", p.Source)
	}
	if _, err := Resolve("nope"); err == nil {
		t.Error("an unknown name resolved")
	}
	b, _ := Bytes(Permissive)
	path := filepath.Join(t.TempDir(), "mine.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Resolve(path); err != nil || p.Source != path {
		t.Fatalf("by path: %v, %v", p, err)
	}
}

// The embedded browser-agent-policy is the seeds' own file, byte for byte (the copy beside the policy
// package's seed tests, itself the source documents' file), and is read in the seeds' format.
func TestBrowserAgentPolicyIsTheSeedsOwnFile(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("..", "agentkit", "policy", "testdata", "seeds", "browser-agent-policy.yml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Bytes("browser-agent-policy")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, seed) {
		t.Error("policies/browser-agent-policy.yml differs from the seeds' file (agentkit/policy/testdata/seeds/browser-agent-policy.yml)")
	}
	p, err := Named("browser-agent-policy")
	if err != nil {
		t.Fatal(err)
	}
	if !p.WritesFromNavigation {
		t.Error("the seeds' file is not read in the seeds' format")
	}
}
