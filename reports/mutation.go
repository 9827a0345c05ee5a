package reports

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MutationSchemaVersion is the version of the mutation result format (mutation.json).
const MutationSchemaVersion = 1

// MutationFile is the mutation result's file name, next to summary.json when both are written.
const MutationFile = "mutation.json"

// Mutant statuses.
const (
	// MutantKilled: at least one trap's guarded arm failed under the mutant.
	MutantKilled = "killed"
	// MutantSurvived: every trap tried held: a coverage gap, a trap still to write.
	MutantSurvived = "survived"
	// MutantEquivalent: the mutant survived and is declared equivalent to the original fence, with a reason.
	MutantEquivalent = "equivalent"
	// MutantInvalid: the mutated policy does not load, so no agent can run with it.
	MutantInvalid = "invalid"
	// MutantBroken: a run could not be carried out (fixture or environment), and no trap killed it.
	MutantBroken = "broken"
)

// Mutation is the result of one mutation run (trapline mutate).
type Mutation struct {
	V         int       `json:"v"`
	Generated time.Time `json:"generated"`
	// Policy is the policy file the mutants were made from.
	Policy string `json:"policy"`
	// Catalog lists the traps the mutants ran against, in catalog order.
	Catalog []string `json:"catalog"`
	// AllTraps: every trap ran against every mutant; otherwise each mutant stopped at its first kill.
	AllTraps bool `json:"all_traps"`
	// Pruned: each mutant ran only against the traps whose baseline run recorded a denial by the rule
	// it weakens (test selection by coverage); otherwise against every trap that holds.
	Pruned bool `json:"pruned"`
	// Fingerprint names the inputs the run judged (the policy's bytes, the catalog, the mutants); a
	// committed result whose fingerprint no longer matches the current inputs is a stale proof.
	Fingerprint *MutationFingerprint `json:"fingerprint,omitempty"`
	Workers     int                  `json:"workers"`
	WallSecs    float64              `json:"wall_seconds"`
	Runs        int                  `json:"runs"`
	// Baseline lists the traps whose guarded arm was run under the original policy to confirm that a
	// kill is the mutant's doing, with the verdict.
	Baseline []BaselineRun  `json:"baseline"`
	Mutants  []MutantResult `json:"mutants"`

	Total      int `json:"total"`
	Killed     int `json:"killed"`
	Survived   int `json:"survived"`
	Equivalent int `json:"equivalent"`
	Invalid    int `json:"invalid"`
	Broken     int `json:"broken"`
	// KillRate is Killed / (Killed + Survived): equivalent, invalid and broken mutants are left out.
	KillRate float64 `json:"kill_rate"`
}

// MutationFingerprint identifies what a mutation run was about: two runs with the same fingerprint
// mutated the same policy file into the same mutants and ran them against the same catalog.
type MutationFingerprint struct {
	// PolicySHA256 is the hex SHA-256 of the mutated policy file's bytes.
	PolicySHA256 string `json:"policy_sha256"`
	// Catalog is the sorted list of the trap ids run.
	Catalog []string `json:"catalog"`
	// MutantsSHA256 is the hex SHA-256 of the mutant ids run, one a line, in order.
	MutantsSHA256 string `json:"mutants_sha256"`
	// Mutants counts the mutants run.
	Mutants int `json:"mutants"`
}

// Mismatch says, in words, how f differs from want (the current inputs); "" when they match.
func (f *MutationFingerprint) Mismatch(want MutationFingerprint) string {
	if f == nil {
		return "the result has no fingerprint (it predates fingerprints)"
	}
	var why []string
	if f.PolicySHA256 != want.PolicySHA256 {
		why = append(why, fmt.Sprintf("the policy changed (sha256 %s, now %s)", short(f.PolicySHA256), short(want.PolicySHA256)))
	}
	if added, removed := diffSorted(want.Catalog, f.Catalog), diffSorted(f.Catalog, want.Catalog); len(added)+len(removed) > 0 {
		why = append(why, fmt.Sprintf("the catalog changed (new traps %v, gone %v)", added, removed))
	}
	if f.MutantsSHA256 != want.MutantsSHA256 {
		why = append(why, fmt.Sprintf("the mutants changed (%d, now %d)", f.Mutants, want.Mutants))
	}
	return strings.Join(why, "; ")
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// diffSorted lists the entries of a that b lacks.
func diffSorted(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// BaselineRun is one trap's guarded arm under the original policy.
type BaselineRun struct {
	Trap string `json:"trap"`
	Pass bool   `json:"pass"`
	Why  string `json:"why"`
	// Retried: the first run failed and the verdict is the second's.
	Retried bool `json:"retried,omitempty"`
}

// MutantResult is what the catalog did to one mutant.
type MutantResult struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Guard  string `json:"guard"`
	Desc   string `json:"desc"`
	Status string `json:"status"`
	// KilledBy lists the traps whose guarded arm failed, with why; without AllTraps only the first.
	KilledBy []Kill `json:"killed_by,omitempty"`
	// Tried lists the traps run, in order.
	Tried []string `json:"tried"`
	// Uncovered counts the traps not run because their baseline run never met the weakened rule.
	Uncovered int `json:"uncovered"`
	// Reason explains an equivalent, invalid or broken mutant.
	Reason string `json:"reason,omitempty"`
	// Note flags a declaration that the run contradicts (a declared-equivalent mutant that was killed).
	Note    string  `json:"note,omitempty"`
	Seconds float64 `json:"seconds"`
	// Evidence is the folder of the mutant's runs.
	Evidence string `json:"evidence,omitempty"`
}

// Kill is one trap that killed a mutant.
type Kill struct {
	Trap string `json:"trap"`
	Why  string `json:"why"`
}

// Finish counts the statuses and the kill rate.
func (m *Mutation) Finish(now time.Time) {
	m.V, m.Generated = MutationSchemaVersion, now
	m.Total, m.Killed, m.Survived, m.Equivalent, m.Invalid, m.Broken = len(m.Mutants), 0, 0, 0, 0, 0
	for _, r := range m.Mutants {
		switch r.Status {
		case MutantKilled:
			m.Killed++
		case MutantSurvived:
			m.Survived++
		case MutantEquivalent:
			m.Equivalent++
		case MutantInvalid:
			m.Invalid++
		case MutantBroken:
			m.Broken++
		}
	}
	m.KillRate = 0
	if n := m.Killed + m.Survived; n > 0 {
		m.KillRate = float64(m.Killed) / float64(n)
	}
}

// WriteMutationJSON writes m to path, creating the folder.
func WriteMutationJSON(path string, m Mutation) error { return writeJSONFile(path, m) }

// ReadMutationJSON reads a mutation result, checking its schema version.
func ReadMutationJSON(path string) (Mutation, error) {
	var m Mutation
	if err := readJSONFile(path, &m); err != nil {
		return m, err
	}
	if m.V != MutationSchemaVersion {
		return m, fmt.Errorf("reports: %s: mutation schema version %d, this trapline reads %d", path, m.V, MutationSchemaVersion)
	}
	return m, nil
}

// ReadMutationBeside reads dir/mutation.json when it exists; (nil, nil) when it does not.
func ReadMutationBeside(dir string) (*Mutation, error) {
	p := filepath.Join(dir, MutationFile)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	m, err := ReadMutationJSON(p)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// MutationTable prints the kill rate, the survivors (coverage gaps, each with the guard it weakens),
// the equivalent, invalid and broken mutants, and one line per killed mutant.
func MutationTable(w io.Writer, m Mutation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mutants: %d  killed: %d  survived: %d  equivalent: %d  invalid: %d  broken: %d\n",
		m.Total, m.Killed, m.Survived, m.Equivalent, m.Invalid, m.Broken)
	fmt.Fprintf(&b, "kill rate: %.1f%% (%d/%d; equivalent, invalid and broken left out)  runs: %d  wall time: %.0fs  workers: %d\n",
		100*m.KillRate, m.Killed, m.Killed+m.Survived, m.Runs, m.WallSecs, m.Workers)
	for _, br := range m.Baseline {
		if !br.Pass {
			fmt.Fprintf(&b, "baseline: %s does not hold under the original policy, so it kills nothing: %s\n", br.Trap, br.Why)
		}
	}
	section := func(status, title string, line func(MutantResult) string) {
		first := true
		for _, r := range m.Mutants {
			if r.Status != status {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", title)
				first = false
			}
			fmt.Fprintf(&b, "  %s\n", line(r))
		}
	}
	section(MutantSurvived, "SURVIVORS (coverage gaps: a trap still to write)", func(r MutantResult) string {
		held := fmt.Sprintf("%d traps held", len(r.Tried))
		if r.Reason != "" {
			held = r.Reason
		}
		return fmt.Sprintf("%-60s weakens %s: %s (%s)", r.ID, r.Guard, r.Desc, held)
	})
	section(MutantBroken, "BROKEN (a run could not be carried out: not a kill)", func(r MutantResult) string {
		return fmt.Sprintf("%-60s %s", r.ID, r.Reason)
	})
	section(MutantEquivalent, "equivalent (declared, with the reason)", func(r MutantResult) string {
		return fmt.Sprintf("%-60s %s", r.ID, r.Reason)
	})
	section(MutantInvalid, "invalid (the policy loader refuses the mutated file)", func(r MutantResult) string {
		return fmt.Sprintf("%-60s %s", r.ID, r.Reason)
	})
	section(MutantKilled, "killed", func(r MutantResult) string { return r.ID + "  " + KillSummary(r, m.AllTraps) })
	_, err := io.WriteString(w, b.String())
	return err
}

// KillSummary says which traps killed r, and how many were tried.
func KillSummary(r MutantResult, all bool) string {
	if len(r.KilledBy) == 0 {
		return ""
	}
	names := make([]string, len(r.KilledBy))
	for i, k := range r.KilledBy {
		names[i] = k.Trap
	}
	s := "killed by " + strings.Join(names, ", ")
	if !all {
		s += fmt.Sprintf(" (first of the %d traps tried)", len(r.Tried))
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

//go:embed mutation.html.tmpl
var mutationHTML string

var mutationTemplate = template.Must(template.New("mutation").Funcs(template.FuncMap{
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"kill": KillSummary,
}).Parse(mutationHTML))

// MutationSection renders m as an HTML section (no script, no outside reference) for the report page.
func MutationSection(m Mutation) (template.HTML, error) {
	var b bytes.Buffer
	if err := mutationTemplate.Execute(&b, m); err != nil {
		return "", fmt.Errorf("reports: render mutation section: %w", err)
	}
	return template.HTML(b.String()), nil //nolint:gosec // rendered by html/template above
}

// mutationPage wraps the section in a self-contained page for trapline mutate's mutation.html.
var mutationPage = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>trapline mutation report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #1f2328; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; } .verdict { font-weight: 700; text-align: center; }
.pass { background: #dafbe1; color: #116329; } .fail { background: #ffebe9; color: #a40e26; } .broken { background: #fff8c5; color: #7d4e00; }
code { font-family: ui-monospace, monospace; font-size: 90%; background: #f6f8fa; } .small { font-size: 90%; color: #59636e; }
</style></head><body><main>{{.}}</main></body></html>
`))

// WriteMutationHTMLFile writes m as a self-contained page (the same section the report embeds).
func WriteMutationHTMLFile(path string, m Mutation) error {
	sec, err := MutationSection(m)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := mutationPage.Execute(&b, sec); err != nil {
		return fmt.Errorf("reports: render %s: %w", path, err)
	}
	return writeFile(path, b.Bytes())
}
