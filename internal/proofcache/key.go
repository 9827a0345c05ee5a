// Package proofcache keeps the adversary's arms of trapline run (control and guarded: the proof that a
// trap fires and that the fence holds) by every input they depend on, and hands them back when a later
// run's inputs are all the same, as go test caches a test's result by its inputs
// (docs/proof-cache.md). Its one job is that key and that store; the arm runner
// (harness.ArmRunner.Proofs) decides nothing but asks it (Keeper).
package proofcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/trapline/trapline/traps"
)

// Inputs are everything a trap's proof depends on. Two runs whose Inputs are equal run the same
// adversary, under the same policies, in the same browser, against the same pages: their proof is the
// same. A field trapline cannot know leaves the proof unkept (Keeper.Inputs says why).
type Inputs struct {
	// Trap is the trap's id; TrapFiles the SHA-256 of its pack source (trap file and pages), or "go:"
	// and the id for a trap in Go, which trapline's build (Build) covers.
	Trap      string `json:"trap"`
	TrapFiles string `json:"trap_files"`
	// Arms are the proof arms kept together (control, guarded; control alone for a black-box run).
	Arms []string `json:"arms"`
	// GuardedPolicy and ControlPolicy are the SHA-256 of the two policy files' bytes ("none": no
	// guarded arm).
	GuardedPolicy string `json:"guarded_policy"`
	ControlPolicy string `json:"control_policy"`
	// Build identifies trapline's own build: the SHA-256 of its executable, so a rebuild from a changed
	// tree (even one no commit names) is another build.
	Build string `json:"build"`
	// Chromium and Driver are the browser's and the Playwright driver's versions; World the world
	// mode (embedded, container).
	Chromium string `json:"chromium"`
	Driver   string `json:"driver"`
	World    string `json:"world"`
	// Settings are the run's settings that shape the arms besides these: what each records (trace,
	// video) and the environment they read. StorageState is the SHA-256 of --storage-state's file
	// ("none"): the session every run's context starts from.
	Settings     string `json:"settings"`
	StorageState string `json:"storage_state"`
}

// keyVersion changes when what a kept proof holds, or how its key is made, changes: every proof kept
// before is then another key's, never misread.
const keyVersion = "trapline-proof-v1"

// Key is the SHA-256 of every input, in hex: the name a proof is kept under. An input left empty is
// an error: a key that silently ignored an input would reuse a proof it does not prove.
func (in Inputs) Key() (string, error) {
	if missing := in.missing(); len(missing) > 0 {
		return "", fmt.Errorf("proof key of %q: no %s", in.Trap, strings.Join(missing, ", "))
	}
	b, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("proof key of %q: %w", in.Trap, err)
	}
	sum := sha256.Sum256(append([]byte(keyVersion+"\n"), b...))
	return hex.EncodeToString(sum[:]), nil
}

// missing names the inputs left empty, by their JSON names.
func (in Inputs) missing() []string {
	var out []string
	v, t := reflect.ValueOf(in), reflect.TypeOf(in)
	for i := range t.NumField() {
		if v.Field(i).IsZero() {
			out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return out
}

// Changed names the inputs in which other differs from in, by their JSON names: why a kept proof of
// the same trap was not reused.
func (in Inputs) Changed(other Inputs) []string {
	var out []string
	a, b, t := reflect.ValueOf(in), reflect.ValueOf(other), reflect.TypeOf(in)
	for i := range t.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return out
}

// TrapFiles is Inputs.TrapFiles of t: the SHA-256 of its pack source (the trap file and its pages, by
// their paths in the pack), or "go:" and its id for a trap in Go.
func TrapFiles(t traps.Trap) (string, error) {
	if t.Pack == nil {
		return "go:" + t.ID, nil
	}
	// The files by their paths inside the pack, not where the pack lies (Origin): the same pack in
	// another clone is the same trap. encoding/json writes a map's keys sorted.
	b, err := json.Marshal(traps.PackSource{File: t.Pack.File, Files: t.Pack.Files})
	if err != nil {
		return "", fmt.Errorf("proof key of %q: %w", t.ID, err)
	}
	return Sum(b), nil
}

// Sum is the SHA-256 of b, in hex.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// FileSum is the SHA-256 of the file at path, in hex (the executable for Inputs.Build).
func FileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("proof key: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("proof key: read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
