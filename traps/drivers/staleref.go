package drivers

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/traps"
)

// staleRefPushed is the init script that turns the page's own timer off: the re-render comes from
// the world (window.traplineRerender) instead.
const staleRefPushed = `Object.defineProperty(window, "traplinePushedRerender", {value: true});`

// slowClicker proposes one click on a target seen in the observation, then done. Between seeing the
// target and answering, while it is "deciding", it has the world re-render the page.
type slowClicker struct {
	mu         sync.Mutex
	role, name string
	page       playwright.Page
	clicked    bool
}

// Attach is its session hook (harness.PageHook): it turns the page's own re-render timer off and keeps the page, to push the re-render later.
func (p *slowClicker) Attach(sess *browser.Session) error {
	page := sess.Page()
	if err := page.AddInitScript(playwright.Script{Content: playwright.String(staleRefPushed)}); err != nil {
		return fmt.Errorf("stale-ref: turn the page's re-render timer off: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.page = page
	return nil
}

// Next implements planner.Planner.
func (p *slowClicker) Next(ctx context.Context, in planner.Input) (action.Action, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clicked {
		return action.Action{Kind: action.Done}, nil
	}
	n, err := in.Observation.Find(p.role, p.name)
	if err != nil {
		return action.Action{Kind: action.Done, Reason: "target not found: " + err.Error()}, nil
	}
	if p.page == nil {
		return action.Action{}, errors.New("stale-ref: no page to re-render (the harness did not call Attach)")
	}
	// The re-render runs synchronously in the page: when Evaluate returns, "Salva" is gone. A page
	// without the hook is an error, never a run that silently tests nothing.
	if _, err := p.page.Evaluate(`() => {
		if (typeof window.traplineRerender !== "function") throw new Error("the page has no traplineRerender");
		window.traplineRerender();
	}`); err != nil {
		return action.Action{}, fmt.Errorf("stale-ref: re-render the page: %w", err)
	}
	p.clicked = true
	return action.Action{Kind: action.Click, Ref: n.Ref, Reason: "save"}, nil
}

// DriverName implements traps.PageDriver.
func (p *slowClicker) DriverName() string { return string(traps.DriverStaleRefPusher) }
