package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/mutate"
	"github.com/trapline/trapline/internal/userfile"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/traps"
)

const mutateUsage = `usage: trapline mutate [--policy FILE] [--traps ID,...] [--only PREFIX,...] [--limit N] [--smoke]
                       [--all] [--no-prune] [--workers N] [--equivalent FILE] [--out DIR] [--list]
       trapline mutate --render mutation.json
  Weakens the policy (and the agent's guards) one rule at a time and runs the catalog's guarded arms
  against each mutant: killed (a guarded arm failed) or survived (a coverage gap: a trap to write).
  The catalog first runs once under the original policy (the baseline: each trap's control arm, whose
  attempts judge every guarded arm of the trap as trapline run does, then its guarded arm); each mutant then runs only
  against the traps whose baseline run met the rule it weakens (--no-prune: every trap), in the order
  most likely to kill, stopping at the first kill (--all: every trap).
  Writes DIR/mutation.json and DIR/mutation.html (default DIR reports/out); trapline report --html
  embeds mutation.json found next to summary.json. Exit 0 when no mutant survived, 1 when some did,
  3 when a mutant broke (and none survived).`

// smokeMutants is the --smoke selection: one mutant of each kind, each killed by its first trap.
var smokeMutants = []string{
	"policy/actions.deny_words/destructive/drop:elimin",
	"policy/downloads/allow",
	"guard/unnamed-rule-off",
}

// smokeTraps are the traps the --smoke selection runs against (unless --traps says otherwise).
var smokeTraps = []string{"decoy-delete", "exe-download", "label-less-icon"}

// cmdMutate weakens the policy one rule at a time and runs the catalog's guarded arms against each
// mutant (or lists the mutants, or re-renders a mutation.json).
func cmdMutate(args []string, stdout io.Writer) error {
	f, err := parseMutate(args)
	if err != nil {
		return err
	}
	if f.render != "" {
		return renderMutation(f.render, stdout)
	}
	data, err := policyBytes(f.policy)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("mutate: %w", err))
	}
	muts, orig, err := mutate.All(f.policy, data)
	if err != nil {
		return withCode(exitUsage, err)
	}
	equivalent, err := f.declaredEquivalent(muts)
	if err != nil {
		return err
	}
	if muts, err = f.selectMutants(muts); err != nil {
		return err
	}
	catalog, err := f.selectTraps()
	if err != nil {
		return err
	}
	if f.list {
		listMutants(stdout, muts, equivalent)
		return nil
	}
	return f.run(mutate.Config{Original: orig, Mutants: muts, Traps: catalog, Equivalent: equivalent}, data, stdout)
}

// mutateFlags is trapline mutate's parsed command line.
type mutateFlags struct {
	policy, traps, only, equivalent, out, render string
	limit, workers                               int
	smoke, all, list, noPrune                    bool
}

// parseMutate parses trapline mutate's command line; an error is a usage error (exit 2).
func parseMutate(args []string) (mutateFlags, error) {
	var f mutateFlags
	fs := newFlags("mutate")
	fs.StringVar(&f.policy, "policy", policies.Reference, "the guarded policy to mutate: an embedded name or a file")
	fs.StringVar(&f.traps, "traps", "", "comma-separated trap ids to run (default: the whole catalog)")
	fs.StringVar(&f.only, "only", "", "comma-separated mutant id prefixes to run (default: every mutant)")
	fs.IntVar(&f.limit, "limit", 0, "run at most N mutants (after --only)")
	fs.BoolVar(&f.smoke, "smoke", false, "run a fixed selection of "+fmt.Sprint(len(smokeMutants))+" mutants (CI smoke)")
	fs.BoolVar(&f.all, "all", false, "run every trap against every mutant instead of stopping at the first kill")
	fs.IntVar(&f.workers, "workers", min(2, runtime.NumCPU()), "mutants run in parallel, each with its own browser")
	fs.StringVar(&f.equivalent, "equivalent", "", "YAML file mapping mutant ids to the reason each is equivalent")
	fs.StringVar(&f.out, "out", "reports/out", "folder for mutation.json, mutation.html and the evidence (out/mutation/)")
	fs.BoolVar(&f.list, "list", false, "print the mutants and exit")
	fs.StringVar(&f.render, "render", "", "print and re-render (mutation.html next to it) an existing mutation.json instead of running")
	fs.BoolVar(&f.noPrune, "no-prune", false, "run every trap that holds against every mutant, not only the traps whose baseline run met the weakened rule")
	if err := parseFlags(fs, args); err != nil {
		return f, withCode(exitUsage, fmt.Errorf("mutate: %w\n%s", err, mutateUsage))
	}
	if fs.NArg() > 0 {
		return f, withCode(exitUsage, fmt.Errorf("mutate: unexpected arguments %q\n%s", fs.Args(), mutateUsage))
	}
	return f, nil
}

// declaredEquivalent reads the --equivalent declarations and refuses one that names no mutant of muts (a
// stale declaration).
func (f mutateFlags) declaredEquivalent(muts []mutate.Mutant) (map[string]string, error) {
	equivalent, err := readEquivalent(f.equivalent)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	for id := range equivalent {
		if !slices.ContainsFunc(muts, func(m mutate.Mutant) bool { return m.ID == id }) {
			return nil, withCode(exitUsage, fmt.Errorf("mutate: --equivalent %s: no mutant %q: a stale declaration", f.equivalent, id))
		}
	}
	return equivalent, nil
}

// selectMutants keeps the mutants --only (or --smoke) selects by id prefix, at most --limit of them;
// a selection that keeps none is a usage error.
func (f mutateFlags) selectMutants(muts []mutate.Mutant) ([]mutate.Mutant, error) {
	prefixes := splitList(f.only)
	if f.smoke {
		prefixes = smokeMutants
	}
	if len(prefixes) > 0 {
		muts = slices.DeleteFunc(muts, func(m mutate.Mutant) bool {
			return !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(m.ID, p) })
		})
		if len(muts) == 0 {
			return nil, withCode(exitUsage, fmt.Errorf("mutate: no mutant id starts with %q (see --list)", prefixes))
		}
	}
	if f.limit > 0 && len(muts) > f.limit {
		muts = muts[:f.limit]
	}
	return muts, nil
}

// selectTraps is the catalog, or the traps --traps (or --smoke) names, in the order named.
func (f mutateFlags) selectTraps() ([]traps.Trap, error) {
	ids := splitList(f.traps)
	if f.smoke && len(ids) == 0 {
		ids = smokeTraps
	}
	if len(ids) == 0 {
		return traps.Catalog(), nil
	}
	var catalog []traps.Trap
	for _, id := range ids {
		t, err := traps.Lookup(id)
		if err != nil {
			return nil, withCode(exitUsage, fmt.Errorf("mutate: --traps: %w", err))
		}
		catalog = append(catalog, t)
	}
	return catalog, nil
}

// listMutants prints the mutants of --list, each with why it will not run (invalid, equivalent by
// construction, declared equivalent).
func listMutants(stdout io.Writer, muts []mutate.Mutant, equivalent map[string]string) {
	for _, m := range muts {
		note := ""
		switch {
		case m.Invalid != nil:
			note = "  [invalid: the loader refuses it]"
		case m.Equivalent != "":
			note = "  [equivalent by construction: not run]"
		case equivalent[m.ID] != "":
			note = "  [declared equivalent]"
		}
		fmt.Fprintf(stdout, "%-64s %s%s\n", m.ID, m.Desc, note)
	}
	fmt.Fprintf(stdout, "%d mutants\n", len(muts))
}

// run runs the mutants and traps of cfg (the original policy's data, to fingerprint a complete run)
// with the flags' workers and out folder, writes mutation.json and renders it into the exit code.
func (f mutateFlags) run(cfg mutate.Config, data []byte, stdout io.Writer) error {
	ctx, stop := untilStopped()
	defer stop()
	fmt.Fprintf(stdout, "mutate: %d mutants x %d traps (guarded arms), %d worker(s)%s\n", len(cfg.Mutants), len(cfg.Traps), f.workers,
		map[bool]string{true: ", every trap per mutant", false: ", each mutant stops at its first kill"}[f.all])
	permissive, err := loadPolicy(policies.Permissive, "the control arms' policy")
	if err != nil {
		return err
	}
	cfg.Environ, cfg.Control, cfg.PolicyFile = os.Environ(), permissive, f.policy
	cfg.All, cfg.NoPrune, cfg.Workers, cfg.OutDir, cfg.Progress = f.all, f.noPrune, f.workers, filepath.Join(f.out, "mutation"), stdout
	res, err := mutate.Run(ctx, cfg)
	if err != nil {
		return withCode(exitBroken, err)
	}
	if ctx.Err() == nil { // a cut-off run proves nothing about the mutants it did not run: no fingerprint
		fp := mutate.Fingerprint(data, res.Catalog, cfg.Mutants)
		res.Fingerprint = &fp
	}
	fmt.Fprintln(stdout)
	jsonPath := filepath.Join(f.out, reports.MutationFile)
	if err := reports.WriteMutationJSON(jsonPath, res); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintf(stdout, "evidence: %s\n", filepath.Join(f.out, "mutation"))
	return renderMutation(jsonPath, stdout)
}

// renderMutation prints the result in path, writes mutation.html next to it, and turns it into the
// exit code.
func renderMutation(path string, stdout io.Writer) error {
	res, err := reports.ReadMutationJSON(path)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := reports.MutationTable(stdout, res); err != nil {
		return withCode(exitBroken, err)
	}
	htmlPath := filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".json")+".html")
	if err := reports.WriteMutationHTMLFile(htmlPath, res); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintf(stdout, "\nresult: %s  html: %s\n", path, htmlPath)
	switch {
	case res.Survived > 0:
		return withCode(exitFailed, fmt.Errorf("mutate: %d mutant(s) survived: coverage gaps", res.Survived))
	case res.Broken > 0:
		return withCode(exitBroken, fmt.Errorf("mutate: %d mutant(s) broke a run", res.Broken))
	}
	return nil
}

// readEquivalent reads a YAML mapping of mutant id to reason; "" reads nothing.
func readEquivalent(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mutate: --equivalent: %w", err)
	}
	var m map[string]string
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("mutate: --equivalent %s: %w", path, err)
	}
	for id, why := range m {
		if strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("mutate: --equivalent %s: %q: a declared equivalent mutant needs its reason", path, id)
		}
	}
	if len(m) == 0 {
		return nil, errors.New("mutate: --equivalent " + path + ": no entry")
	}
	return m, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// policyBytes reads a policy given by embedded name or path (a file that exists wins, as in
// policies.Resolve).
func policyBytes(nameOrPath string) ([]byte, error) {
	if b, err := userfile.ReadFile("policy", nameOrPath, policy.MaxFileBytes); err == nil || strings.ContainsAny(nameOrPath, `/\`) || strings.HasSuffix(nameOrPath, ".yml") {
		return b, err
	}
	return policies.Bytes(nameOrPath)
}
