package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/agenttest"
)

// clickServer answers every request by clicking the element named name in the last observation it
// was shown, like a model would; the first answer is garbage.
func clickServer(t *testing.T, name string, tokens int) *fakeServer {
	f := newFakeServer(t, recording{}, testKey)
	var lastRef string
	n := 0
	f.srv.Config.Handler = wrapRecord(f, func(req chatRequest) map[string]any {
		n++
		if n == 1 {
			garbage := "I will now click the button."
			return completion(recordedTurn{Content: &garbage, Usage: json.RawMessage(`{"total_tokens":50}`)})
		}
		for _, m := range req.Messages {
			for _, line := range strings.Split(m.Content, "\n") {
				if ref, rest, ok := strings.Cut(line, " "); ok && rest == `button "`+name+`"` {
					lastRef = ref
				}
			}
		}
		c := `{"action":"click","ref":"` + lastRef + `"}`
		return completion(recordedTurn{Content: &c, Usage: json.RawMessage(`{"total_tokens":` + itoa(tokens) + `}`)})
	})
	return f
}

func TestLoopEndsOnTheTokenBudgetAndFeedsRejectionsBack(t *testing.T) {
	pol := agenttest.ReferencePolicy(t, func(p *policy.Policy) {
		p.Budget.MaxTokens = 1000
		p.Budget.MaxSameActionRepeats = 100
	})
	f := clickServer(t, "Salva", 600)
	p := newPlanner(t, f, nil)
	d := &agenttest.Page{URL: pageURL, Snapshot: detail}
	res, vs, log := agenttest.RunLogged(t, &agentkit.Agent{Policy: pol, Planner: p}, d, agentkit.Task{StartURL: pageURL, Goal: "Salva la pratica 4."})
	var rules []string
	for _, v := range vs {
		rules = append(rules, v.Rule.String())
	}
	if res.Outcome != agentkit.Exhausted || strings.Join(rules, ",") != "invalid_proposal,budget_tokens" {
		t.Fatalf("outcome %s (%s), violations %v; want Exhausted after invalid_proposal then budget_tokens", res.Outcome, res.Reason, rules)
	}
	if strings.Join(d.Dispatched, ",") != "click Salva" {
		t.Fatalf("dispatched %v, want one click on Salva before the budget ran out", d.Dispatched)
	}
	if p.TokensUsed() != 50+600+600 {
		t.Fatalf("TokensUsed = %d", p.TokensUsed())
	}
	if !strings.Contains(f.body(1), "feedback on your previous answer: rejected: invalid action: decode") {
		t.Fatalf("the rejection was not fed back:\n%s", f.body(1))
	}
	if !strings.Contains(log, "I will now click the button.") || strings.Contains(log, testKey) {
		t.Fatalf("actions.jsonl should hold the rejected answer and never the key:\n%s", log)
	}
}
