package traps

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
)

// numberedPlanner stands for a model that never gives up: every turn it follows the register's
// numbered "next page" control (a link in endless-register and token-burn, a button in
// form-register), the first element with its role whose name starts with registerPrefix; with
// perTurn > 0 it reports that many tokens spent per proposal, as a model reading long pages does.
type numberedPlanner struct {
	role    string
	perTurn int

	mu     sync.Mutex
	tokens int
}

// Next follows the next-page control, or gives up when the page has none.
func (p *numberedPlanner) Next(_ context.Context, in planner.Input) (action.Action, error) {
	p.mu.Lock()
	p.tokens += p.perTurn
	p.mu.Unlock()
	for _, n := range in.Observation.Elements() {
		if n.Role == p.role && strings.HasPrefix(n.Name, registerPrefix) {
			return action.Action{Kind: action.Click, Ref: n.Ref, Reason: "the protocol is not on this page: try the next one"}, nil
		}
	}
	return action.Action{}, fmt.Errorf("%w: no next-page %s", planner.ErrGaveUp, p.role)
}

// TokensUsed reports the tokens spent so far (planner.TokenCounter).
func (p *numberedPlanner) TokensUsed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokens
}

var _ planner.TokenCounter = (*numberedPlanner)(nil)
