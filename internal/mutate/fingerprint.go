package mutate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/reports"
)

// All is every mutant of a policy file: its policy mutants, then the guard mutants of the parsed
// original (what trapline mutate runs without --only, --limit or --smoke), with the parsed original.
func All(file string, data []byte) ([]Mutant, *policy.Policy, error) {
	orig, err := policy.Parse(file, data)
	if err != nil {
		return nil, nil, fmt.Errorf("mutate: %w", err)
	}
	muts, err := PolicyMutants(file, data)
	if err != nil {
		return nil, nil, err
	}
	return append(muts, GuardMutants(orig)...), orig, nil
}

// Fingerprint names a run's inputs: the policy file's bytes, the trap ids run (sorted) and the
// mutant ids run (in order). A committed result is current while its fingerprint equals the one of
// the current policy, catalog and mutants.
func Fingerprint(policyData []byte, trapIDs []string, muts []Mutant) reports.MutationFingerprint {
	p := sha256.Sum256(policyData)
	ids := make([]string, len(muts))
	for i, m := range muts {
		ids[i] = m.ID
	}
	h := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	cat := slices.Clone(trapIDs)
	slices.Sort(cat)
	return reports.MutationFingerprint{PolicySHA256: hex.EncodeToString(p[:]), Catalog: cat,
		MutantsSHA256: hex.EncodeToString(h[:]), Mutants: len(muts)}
}
