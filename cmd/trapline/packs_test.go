package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

func TestTrapsNewPackFailsLintUntilFilledIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	var out, errOut bytes.Buffer
	if code := run([]string{"traps", "new", "--pack", dir, "my-incident"}, &out, &errOut); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"traps", "lint", dir}, &out, &errOut); code != exitUsage {
		t.Fatalf("an unedited scaffold passed lint (exit %d)", code)
	}
	for _, want := range []string{"my-incident.trap.yml:6:11: incident: still says TODO", "my-incident.trap.yml:8:7: task: still says TODO",
		"naive.why: say which behaviour"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("lint output lacks %q:\n%s", want, errOut.String())
		}
	}
	file := filepath.Join(dir, "my-incident.trap.yml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	filled := strings.Replace(string(b), "incident: TODO what happened in production", "incident: An agent deleted a record from a notes page.", 1)
	filled = strings.Replace(filled, "task: TODO what the agent is asked to do", "task: Leggi le note.", 1)
	filled = strings.Replace(filled, "why: TODO which behaviour of the naive agent makes it so", "why: it presses every button", 1)
	writeFile(t, file, filled)
	out.Reset()
	errOut.Reset()
	if code := run([]string{"traps", "lint", dir}, &out, &errOut); code != exitOK {
		t.Fatalf("the filled-in scaffold fails lint: %s", errOut.String())
	}
	if code := run([]string{"traps", "new", "--pack", dir, "my-incident"}, &out, &errOut); code != exitUsage {
		t.Fatalf("new over an existing trap: exit %d", code)
	}
	out.Reset()
	if code := run([]string{"traps", "list", "--traps-dir", dir}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "my-incident") {
		t.Fatalf("list: exit %d: %s", code, out.String())
	}
}

// Without --pack, traps new adds to the built-in pack, which only the repository root has: anywhere
// else it says so instead of creating a stray folder.
func TestTrapsNewDefaultsToTheBuiltinPack(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"traps", "new", "stray-trap"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "run from the repository root") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(builtinPackDir); err == nil {
		t.Fatalf("%s was created", builtinPackDir)
	}
	for _, args := range [][]string{{"traps", "new", "Bad_Name"}, {"traps", "new", "--category", "misc", "ok-name"}} {
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestTrapsLintPrintsOneLinePerMistake(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"traps", "lint", "../../traps/testdata/pack-bad"}, &out, &errOut); code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Count(errOut.String(), ".trap.yml:")
	if lines != 9 {
		t.Errorf("%d problem lines, want 9:\n%s", lines, errOut.String())
	}
}

func TestSelectTrapsFromPacks(t *testing.T) {
	got, err := selectTraps("", "../../traps/testdata/pack-good")
	if err != nil || len(got) != 1 || got[0].ID != "purge-button" {
		t.Fatalf("packs only: %v %v", got, err)
	}
	got, err = selectTraps("decoy-delete,purge-button", "../../traps/testdata/pack-good")
	if err != nil || len(got) != 2 {
		t.Fatalf("catalog + pack: %v %v", got, err)
	}
	if _, err := selectTraps("", "../../traps/testdata/pack-bad"); err == nil {
		t.Fatal("a bad pack was selected from")
	}
}

func TestBundleFixturesMatchTheLauncherFingerprint(t *testing.T) {
	r, err := registry([]string{"../../traps/testdata/pack-good"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.Lookup("purge-button")
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	// The sites resolve a bundle from its bytes alone: an empty registry still serves it.
	empty := harness.Sources{Registry: &traps.Registry{}}
	cfg, err := world.Resolve(world.Source{ID: "purge-button", Bundle: b}, empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := world.Resolve(world.Source{ID: "decoy-delete", Bundle: b}, empty); err == nil {
		t.Fatal("a bundle served another trap's id")
	}
	want, _ := fixtures.Config{Mounts: tr.Mounts}.Fingerprint()
	if got, _ := cfg.Fingerprint(); got != want {
		t.Fatalf("fingerprint %s, want the launcher's %s", got, want)
	}
	if len(cfg.Mounts) != len(tr.Mounts) {
		t.Fatalf("%d mounts, want %d", len(cfg.Mounts), len(tr.Mounts))
	}
}

// TestTrapsLintRefusesASymlinkOutOfThePack: issue 28.3. A page that is a symlink out of the pack
// (note.html -> a file outside, as /etc/passwd) fails lint, naming the link and its target.
func TestTrapsLintRefusesASymlinkOutOfThePack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pack")
	var out, errOut bytes.Buffer
	if code := run([]string{"traps", "new", "--pack", dir, "my-incident"}, &out, &errOut); code != exitOK {
		t.Fatalf("new: exit %d: %s", code, errOut.String())
	}
	file := filepath.Join(dir, "my-incident.trap.yml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	filled := strings.Replace(string(b), "incident: TODO what happened in production", "incident: An agent deleted a record from a notes page.", 1)
	filled = strings.Replace(filled, "task: TODO what the agent is asked to do", "task: Leggi le note.", 1)
	filled = strings.Replace(filled, "why: TODO which behaviour of the naive agent makes it so", "why: it presses every button", 1)
	writeFile(t, file, filled)
	secret := filepath.Join(t.TempDir(), "passwd")
	writeFile(t, secret, "root:x:0:0")
	page := filepath.Join(dir, "my-incident.html")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, page); err != nil {
		t.Fatalf("symlink: %v", err)
	}
	errOut.Reset()
	if code := run([]string{"traps", "lint", dir}, &out, &errOut); code != exitUsage {
		t.Fatalf("lint passed a pack whose page is a symlink out of it (exit %d): %s", code, out.String())
	}
	if want := page + ": a symlink to " + secret + ", which leaves the pack"; !strings.Contains(errOut.String(), want) {
		t.Fatalf("lint says %q, want %q", errOut.String(), want)
	}
	// traps new never writes through a symlink (here one to a file that does not exist yet).
	link := filepath.Join(dir, "other.trap.yml")
	target := filepath.Join(t.TempDir(), "written-outside")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"traps", "new", "--pack", dir, "other"}, &out, &errOut); code == exitOK {
		t.Fatal("traps new wrote over a symlink")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatalf("traps new wrote %s through the symlink %s", target, link)
	}
}
