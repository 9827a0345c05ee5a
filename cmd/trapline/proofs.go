package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/proofcache"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The proof cache (docs/proof-cache.md): the adversary's arms of each trap (control, guarded) are
// kept by every input they depend on and reused by a later run whose inputs are all the same, as go
// test caches a test. On by default for a user's gate (gating a model upgrade then runs only the
// agent's own arms); --fresh-proofs or TRAPLINE_PROOFS=fresh re-make them (and keep the new ones),
// TRAPLINE_PROOFS=off neither reuses nor keeps. trapline's own CI (.ci/run) and make test set
// TRAPLINE_PROOFS=fresh: they test trapline itself, so every proof must be made by the tree under test.

// proofsEnv is the environment variable that sets the proof cache's mode; cacheEnv the folder of
// trapline's caches (default: the user's cache folder's trapline/), proofs in its proofs/.
const (
	proofsEnv = "TRAPLINE_PROOFS"
	cacheEnv  = "TRAPLINE_CACHE"
)

// proofEnviron are the variables the adversary's arms read (the trace's detail, the browser, a
// remote browser server, the container engine's address): their values are part of a proof's inputs,
// hashed (a remote browser's URL may carry a token).
var proofEnviron = []string{"TRAPLINE_TRACE", "TRAPLINE_CHROMIUM", "TRAPLINE_BROWSER_WS", "TRAPLINE_PUBLISH_IP"}

// proofMode is --fresh-proofs and TRAPLINE_PROOFS together: "reuse" (the default), "fresh" or "off".
func proofMode(freshFlag bool, getenv func(string) string) (string, error) {
	mode := strings.TrimSpace(getenv(proofsEnv))
	switch mode {
	case "", "reuse":
		mode = "reuse"
	case "fresh", "off":
	default:
		return "", fmt.Errorf("%s=%q: want reuse, fresh or off", proofsEnv, mode)
	}
	if freshFlag && mode == "reuse" {
		mode = "fresh"
	}
	return mode, nil
}

// proofCacheDir is where proofs are kept: $TRAPLINE_CACHE/proofs, else the user's cache folder's
// trapline/proofs (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux).
func proofCacheDir(getenv func(string) string) (string, error) {
	if d := getenv(cacheEnv); d != "" {
		return filepath.Abs(filepath.Join(d, "proofs"))
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder to keep proofs in (set %s): %w", cacheEnv, err)
	}
	return filepath.Join(d, "trapline", "proofs"), nil
}

// userApp names the flag that puts the user's own app into the run, "" when none does: such a run
// never reuses a proof (the app is an input trapline cannot hash).
func (c runConfig) userApp() string {
	switch {
	case len(c.upstream) > 0:
		return "--upstream"
	case c.app.image != "":
		return "--upstream-image"
	case c.app.probeCmd != "":
		return "--probe-cmd"
	case c.app.resetCmd != "":
		return "--reset-cmd"
	}
	return ""
}

// proofKeeper is the run's proof cache, nil when the run keeps none (TRAPLINE_PROOFS=off, the user's
// own app, no cache folder: then every proof is made, and the last two say so). prov is the run's
// provenance (policies, driver, world); chromium the adversary's browser's version.
func proofKeeper(cfg runConfig, prov *reports.Provenance, chromium string, stdout io.Writer) (*proofcache.Keeper, error) {
	mode, err := proofMode(cfg.freshProofs, os.Getenv)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if mode == "off" {
		return nil, nil
	}
	if app := cfg.userApp(); app != "" {
		if mode == "reuse" { // fresh would make them anyway: nothing to say
			fmt.Fprintf(stdout, "trapline: proofs made fresh: %s puts your own app in the run, which trapline cannot hash\n", app)
		}
		return nil, nil
	}
	dir, err := proofCacheDir(os.Getenv)
	if err != nil {
		fmt.Fprintf(stdout, "trapline: proofs made fresh: %v\n", err)
		return nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("proof cache: trapline's executable: %w", err))
	}
	build, err := proofcache.FileSum(exe)
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	base := proofcache.Inputs{ControlPolicy: prov.ControlPolicySHA256, Build: build, Chromium: chromium,
		Driver: prov.PlaywrightDriver, World: prov.World, Settings: proofSettings(cfg), StorageState: "none"}
	if cfg.storageState != "" {
		if base.StorageState, err = proofcache.FileSum(cfg.storageState); err != nil {
			return nil, withCode(exitBroken, err)
		}
	}
	guarded := prov.PolicySHA256
	inputs := func(t traps.Trap, arms []results.Arm) (proofcache.Inputs, error) {
		if t.StartHost != "" || t.Probe != nil || len(t.Reset) > 0 {
			return proofcache.Inputs{}, fmt.Errorf("%w (the trap has a start_host, probe: or reset:)", proofcache.ErrNotHashable)
		}
		in := base
		in.Trap, in.GuardedPolicy = t.ID, "none"
		for _, a := range arms {
			in.Arms = append(in.Arms, string(a))
			if a == results.Guarded {
				in.GuardedPolicy = guarded
			}
		}
		if in.GuardedPolicy == "" {
			return in, errors.New("proof cache: no guarded policy digest")
		}
		in.TrapFiles, err = proofcache.TrapFiles(t)
		return in, err
	}
	return &proofcache.Keeper{Store: proofcache.Store{Dir: dir}, Inputs: inputs, Fresh: mode == "fresh", Run: cfg.out, Log: stdout}, nil
}

// proofSettings are the run's settings that shape the adversary's arms besides the named inputs: the
// evidence each records and the environment they read.
func proofSettings(cfg runConfig) string {
	video := cfg.video
	if cfg.agent != "reference" && cfg.agent != "exec" {
		video = "off" // runExternal's proof arms record no video
	}
	var b strings.Builder
	fmt.Fprintf(&b, "trace=on video=%s", video)
	for _, k := range proofEnviron {
		if v, ok := os.LookupEnv(k); ok {
			fmt.Fprintf(&b, " %s=%s", k, proofcache.Sum([]byte(v)))
		}
	}
	return b.String()
}

// useProofCache gives runner the run's proof cache, if it keeps one.
func useProofCache(runner *harness.ArmRunner, cfg runConfig, prov *reports.Provenance, chromium string, stdout io.Writer) error {
	k, err := proofKeeper(cfg, prov, chromium, stdout)
	if err != nil || k == nil {
		return err
	}
	runner.ReuseProofs, runner.KeepProofs = k.Reuse, k.Keep
	return nil
}
