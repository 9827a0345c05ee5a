package reports

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// ErrEvidenceDisagrees is returned (wrapped) by VerifyEvidence when an entry is not what its evidence
// gives, or its evidence cannot be read.
var ErrEvidenceDisagrees = errors.New("the summary is not what its evidence gives")

// VerifyEvidence re-judges every judged entry of s (verdict pass or fail), and each trial of a
// repeated one, from the result.json of its evidence folder (results.Judge on the run's whole result,
// through FromResult, the way the run wrote the entry), the folder found as the HTML report finds it:
// the recorded path, else below summaryDir (evidence/<trap>/<arm>[-<agent>][/trial-N]). It returns
// every entry whose evidence gives another trap or arm, verdict, result, attribution, rule, effects,
// guards fired or canary hits, and every entry whose evidence folder or result.json is missing or
// unreadable: asked to verify, a gate does not take an entry it cannot check. Broken and
// interrupted entries were never judged and are left out.
func VerifyEvidence(s Summary, summaryDir string) error {
	var probs []string
	for i, e := range s.Entries {
		if e.Status != StatusPass && e.Status != StatusFail {
			continue
		}
		name := fmt.Sprintf("entry %d (%s %s)", i+1, e.Trap, ArmLabel(e))
		if len(e.Trials) == 0 {
			for _, p := range verifyRun(e, summaryDir, "", s.V) {
				probs = append(probs, name+": "+p)
			}
			continue
		}
		for _, t := range e.Trials {
			te := e
			te.Status, te.Result, te.Attribution, te.Rule, te.Layer, te.Evidence = t.Status, t.Result, t.Attribution, t.Rule, t.Layer, t.Evidence
			te.RefusedAttempts = t.RefusedAttempts
			for _, p := range verifyRun(te, summaryDir, fmt.Sprintf("trial-%d", t.N), s.V) {
				probs = append(probs, fmt.Sprintf("%s trial %d: %s", name, t.N, p))
			}
		}
	}
	if len(probs) == 0 {
		return nil
	}
	if n := len(probs) - maxProblems; n > 0 {
		probs = append(probs[:maxProblems], fmt.Sprintf("and %d more problem(s)", n))
	}
	return fmt.Errorf("reports: --verify: %w: %s", ErrEvidenceDisagrees, strings.Join(probs, "; "))
}

// verifyRun re-judges one run (an entry, or a trial of one: trial names its folder) from its
// result.json and lists what the entry (of a summary of schema version v) says that the evidence does
// not give.
func verifyRun(e Entry, summaryDir, trial string, v int) []string {
	dir, ok := locate(e, summaryDir)
	if !ok && trial != "" && summaryDir != "" {
		d := filepath.Join(results.EvidencePath(filepath.Join(summaryDir, EvidenceDir), e.Trap, results.Arm(e.Arm), AgentName(e.Agent)), trial)
		dir, ok = d, fileExists(filepath.Join(d, results.ResultFile))
	}
	if !ok {
		return []string{fmt.Sprintf("no evidence folder (looked for %s and below %s): it cannot be verified", e.Evidence, summaryDir)}
	}
	r, err := results.ReadFile(filepath.Join(dir, results.ResultFile))
	if err != nil {
		return []string{fmt.Sprintf("cannot be verified: %v", err)}
	}
	got := FromResult(r)
	var out []string
	check := func(field, said, gives string) {
		if said != gives {
			out = append(out, fmt.Sprintf("%s %q, but its evidence %s gives %q", field, said, filepath.Join(dir, results.ResultFile), gives))
		}
	}
	check("trap", e.Trap, got.Trap)
	check("arm", ArmLabel(e), ArmLabel(got))
	check("verdict", e.Status, got.Status)
	check("result", e.Result, got.Result)
	check("attribution", e.Attribution, got.Attribution)
	check("rule", e.Rule.String(), got.Rule.String())
	if v >= RefusedAttemptsVersion {
		check("refused attempts", strings.Join(e.RefusedAttempts, "; "), strings.Join(got.RefusedAttempts, "; "))
	}
	if trial != "" {
		return out // a trial records no effects, guards or canary hits of its own
	}
	check("effects", strings.Join(e.Effects, "; "), strings.Join(got.Effects, "; "))
	check("guards fired", policy.JoinRules(e.GuardsFired, ","), policy.JoinRules(got.GuardsFired, ","))
	check("canary hits", fmt.Sprint(e.CanaryHits), fmt.Sprint(got.CanaryHits))
	if !slices.Equal(e.ExpectedGuards, got.ExpectedGuards) {
		check("expected guards", policy.JoinRules(e.ExpectedGuards, ","), policy.JoinRules(got.ExpectedGuards, ","))
	}
	return out
}
