// Package agenttest holds the test doubles and set-up that agentkit's tests share (the loop's, the
// planners'): a one-page Driver that records what was dispatched, the reference policy, a recorder in
// a temporary folder, and one call that runs an Agent on a driver. Only test files import it.
package agenttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// Page is an agentkit.Driver serving one fixed snapshot: a stand-in for agentkit/browser's Session.
// Goto moves it to the URL (the snapshot stays); Act records "kind name" in Dispatched and changes
// nothing. Embed it to make a click change the page.
type Page struct {
	// URL is the page's address, set by Goto.
	URL string
	// Snapshot is the aria snapshot every Observe parses.
	Snapshot string
	// ObserveErr, when set, is what Observe returns instead of a snapshot (an unreadable page).
	ObserveErr error
	// Delivery is what Act reports; empty means act.Delivered.
	Delivery act.Delivery
	// Dispatched lists the actions Act was given, as "kind name" (the target's accessible name).
	Dispatched []string
}

// ErrNoScreen is what Page.Screenshot returns: a fake page has no pixels.
var ErrNoScreen = errors.New("no screen")

// Observe parses Snapshot at URL under a new snapshot id, or returns ObserveErr.
func (p *Page) Observe(context.Context) (*observe.Observation, error) {
	if p.ObserveErr != nil {
		return nil, p.ObserveErr
	}
	return observe.Parse(observe.NewSnapshotID(), p.URL, p.Snapshot)
}

// Goto sets URL and reports the navigation delivered.
func (p *Page) Goto(_ context.Context, u string) act.Result {
	p.URL = u
	return act.Result{Delivery: act.Delivered}
}

// Act records the action on target in Dispatched and reports Delivery.
func (p *Page) Act(_ context.Context, _ *observe.Observation, a action.Action, target observe.Node) act.Result {
	p.Dispatched = append(p.Dispatched, string(a.Kind)+" "+target.Name)
	if p.Delivery != "" {
		return act.Result{Delivery: p.Delivery}
	}
	return act.Result{Delivery: act.Delivered}
}

// Screenshot returns ErrNoScreen.
func (p *Page) Screenshot(string) (string, error) { return "", ErrNoScreen }

// ReferencePolicy loads the module's policies/reference.yml, whichever package's test calls it, and
// applies mutate (when not nil) to it.
func ReferencePolicy(t testing.TB, mutate func(*policy.Policy)) *policy.Policy {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("agenttest: cannot find the module root")
	}
	p, err := policy.Load(filepath.Join(filepath.Dir(here), "..", "..", "policies", "reference.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

// Recorder opens an evidence recorder (no redactor) in a new temporary folder; it is closed when the
// test ends.
func Recorder(t testing.TB) *evidence.Recorder {
	t.Helper()
	rec, err := evidence.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	return rec
}

// Run runs ag on d for task with a fresh Recorder and returns the result and the violations
// recorded. An error from Run fails the test.
func Run(t testing.TB, ag *agentkit.Agent, d agentkit.Driver, task agentkit.Task) (agentkit.Result, []evidence.Violation) {
	t.Helper()
	rec := Recorder(t)
	res, err := ag.Run(context.Background(), d, rec, task)
	if err != nil {
		t.Fatal(err)
	}
	return res, rec.Violations()
}

// RunLogged is Run for a test that also reads the evidence: it closes the recorder after the run
// (a failing Close fails the test) and returns the actions log (evidence.ActionsFile) as written.
func RunLogged(t testing.TB, ag *agentkit.Agent, d agentkit.Driver, task agentkit.Task) (agentkit.Result, []evidence.Violation, string) {
	t.Helper()
	rec, err := evidence.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ag.Run(context.Background(), d, rec, task)
	if err != nil {
		t.Fatal(err)
	}
	vs := rec.Violations()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(rec.Path(evidence.ActionsFile))
	if err != nil {
		t.Fatal(err)
	}
	return res, vs, string(log)
}
