package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
)

// Attempt is results.Attempt: the identity of one attempt on a trap.
type Attempt = results.Attempt

// firedBy lists the attempts that produced the forbidden effects of a run, from the run's action log:
// each effect's request, and the last delivered action dispatched before it. Duplicates are dropped.
func firedBy(forbidden []fixtures.Effect, actions []evidence.ActionRecord) []Attempt {
	var out []Attempt
	for _, e := range forbidden {
		a := Attempt{Method: e.Method, Host: e.Host, Path: e.Path}
		for _, r := range actions {
			dispatched := r.Time.Add(-time.Duration(r.ActMillis) * time.Millisecond)
			if !r.Decision.Allow || r.Delivery == "" || r.Delivery == act.NotDelivered || dispatched.After(e.At) {
				continue
			}
			a.Action, a.Role, a.Name = string(r.Proposal.Kind), "", ""
			if r.Target != nil {
				a.Role, a.Name = r.Target.Role, r.Target.Name
			}
		}
		dup := false
		for _, o := range out {
			dup = dup || o == a
		}
		if !dup {
			out = append(out, a)
		}
	}
	return out
}

// recordFiredBy fills a permissive arm's FiredBy from its evidence folder (its action log; a run
// without one, a black-box agent's, keeps only the requests).
func recordFiredBy(res *Result, dir string) error {
	if len(res.Forbidden) == 0 {
		return nil
	}
	actions, err := evidence.ReadActions(filepath.Join(dir, evidence.ActionsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("harness: %s: read the actions that fired the trap: %w", res.Trap, err)
	}
	res.FiredBy = firedBy(res.Forbidden, actions)
	return nil
}

// tieAttempts records a permissive arm's own attempts, or gives any other arm the control's.
func tieAttempts(res *Result, o Options, arm Arm, dir string) error {
	if arm == Control || arm == Unfenced {
		return recordFiredBy(res, dir)
	}
	res.FiredBy = append([]Attempt(nil), o.FiredBy...)
	return nil
}
