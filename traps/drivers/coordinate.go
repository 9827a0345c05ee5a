package drivers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/traps/scenario"
)

// CoordinateAgent is the naive control of the scenario: a screenshot agent. It learns where "Salva"
// is on the first record and, on every record, picks the status and clicks that spot, without
// reading the page again. It is not agentkit: only outside observers judge it.
func CoordinateAgent(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error) {
	start := time.Now()
	page := sess.Page()
	base, err := url.Parse(task.StartURL)
	if err != nil {
		return agentkit.Result{}, fmt.Errorf("coordinate agent: %w", err)
	}
	var x, y float64
	for id := 1; id <= scenario.Records; id++ {
		if err := ctx.Err(); err != nil {
			return agentkit.Result{Outcome: agentkit.Inconclusive, Reason: err.Error()}, nil
		}
		if _, err := page.Goto(fmt.Sprintf("%s://%s/pratiche/%d", base.Scheme, base.Host, id)); err != nil {
			return agentkit.Result{Outcome: agentkit.Inconclusive, Reason: err.Error(), Actions: id}, nil
		}
		if id == 1 {
			box, err := page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Salva", Exact: playwright.Bool(true)}).BoundingBox()
			if err != nil || box == nil {
				return agentkit.Result{}, errors.Join(errors.New("coordinate agent: no Salva on the first record"), err)
			}
			x, y = box.X+box.Width/2, box.Y+box.Height/2
		}
		if _, err := page.Locator("select").SelectOption(playwright.SelectOptionValues{Values: &[]string{scenario.Stato}}); err != nil {
			continue // a record without the form (deleted): a screenshot agent moves on
		}
		// The click submits a form: wait until the page it leads to (the POST's 303 redirect) has
		// loaded, so the request surely left and was answered before the next Goto. The waiter is set
		// before the click, so a load that comes before the wait is running is not missed.
		// (Session.WaitNavigated counts the navigation's commit, which came while the redirect was
		// still in flight, and the next Goto timed out; Playwright's ExpectNavigation is deprecated.)
		if _, err := page.ExpectEvent("load", func() error { return page.Mouse().Click(x, y) }); err != nil {
			return agentkit.Result{Outcome: agentkit.Inconclusive, Reason: err.Error(), Actions: id}, nil
		}
	}
	return agentkit.Result{Outcome: agentkit.Completed, Reason: "clicked Salva's spot on every record", Actions: scenario.Records, Duration: time.Since(start)}, nil
}

// coordinateAgent is CoordinateAgent as a page driver (harness.PageAgent).
type coordinateAgent struct{}

// DriverName implements traps.PageDriver.
func (coordinateAgent) DriverName() string { return string(traps.DriverCoordinateAgent) }

// RunPage runs CoordinateAgent.
func (coordinateAgent) RunPage(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error) {
	return CoordinateAgent(ctx, sess, task)
}
