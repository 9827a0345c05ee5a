package agentkit_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// secretsUnknownDriver is a fakeDriver whose count of password inputs always fails.
type secretsUnknownDriver struct{ fakeDriver }

func (d *secretsUnknownDriver) Observe(ctx context.Context) (*observe.Observation, error) {
	o, err := d.fakeDriver.Observe(ctx)
	if o != nil {
		o.SecretFields = -1
	}
	return o, err
}

// SecretFields == -1 (the count failed) is not "no password field": the run ends Inconclusive.
func TestUnknownSecretFieldsIsInconclusive(t *testing.T) {
	d := &secretsUnknownDriver{fakeDriver{Page: agenttest.Page{Snapshot: detailSnapshot}}}
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), adversary.New(), d)
	if res.Outcome != agentkit.Inconclusive || res.Reason != string(policy.RuleSecretsUnknown) {
		t.Fatalf("outcome %s (%s), want Inconclusive (%s)", res.Outcome, res.Reason, policy.RuleSecretsUnknown)
	}
	if len(d.Dispatched) != 0 || !slices.Contains(rules(vs), string(policy.RuleSecretsUnknown)) {
		t.Fatalf("dispatched %v, violations %v", d.Dispatched, rules(vs))
	}
}

// incompleteSnapshot has a line the parser cannot read: the observation is incomplete.
const incompleteSnapshot = `- generic [ref=e1]:
  - heading "Pratica 4" [level=1] [ref=e2]
  - button "Salva" [ref=e4]
  - ??? garbled [ref=
`

// A ref missing from an incomplete snapshot is Unknown, not absent: the run ends Inconclusive and
// nothing is dispatched (not a plain UNKNOWN_REF rejection the planner could retry around).
func TestIncompleteSnapshotTargetIsUnknown(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: incompleteSnapshot}}
	o, err := observe.Parse("s1", pageURL, incompleteSnapshot)
	if err != nil || o.Complete {
		t.Fatalf("the fixture must parse as incomplete: complete=%v err=%v", o != nil && o.Complete, err)
	}
	pl := planner.Func(func(_ context.Context, in planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Click, Ref: in.Observation.SnapshotID + ":e9"}, nil // not in the snapshot
	})
	res, vs := run(t, agenttest.ReferencePolicy(t, nil), pl, d)
	if res.Outcome != agentkit.Inconclusive || res.Reason != string(policy.RuleIncompleteTarget) {
		t.Fatalf("outcome %s (%s), want Inconclusive (%s)", res.Outcome, res.Reason, policy.RuleIncompleteTarget)
	}
	if len(d.Dispatched) != 0 || !slices.Contains(rules(vs), string(policy.RuleIncompleteTarget)) {
		t.Fatalf("dispatched %v, violations %v", d.Dispatched, rules(vs))
	}
}

// A postcondition is not checked on an incomplete snapshot: the run is Inconclusive, never Completed.
func TestPostconditionOnIncompleteSnapshotIsInconclusive(t *testing.T) {
	d := &fakeDriver{Page: agenttest.Page{Snapshot: incompleteSnapshot}}
	pl := planner.Func(func(context.Context, planner.Input) (action.Action, error) {
		return action.Action{Kind: action.Done, Reason: "finito"}, nil
	})
	res, _ := agenttest.Run(t, &agentkit.Agent{Policy: agenttest.ReferencePolicy(t, nil), Planner: pl}, d, agentkit.Task{StartURL: pageURL, Goal: "x",
		Postcondition: func(*observe.Observation) error { return nil }})
	if res.Outcome != agentkit.Inconclusive || !strings.Contains(res.Reason, "incomplete") {
		t.Fatalf("outcome %s (%s), want Inconclusive: the postcondition is unknown", res.Outcome, res.Reason)
	}
}
