package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// Planner asks an OpenAI-compatible chat model for one action per turn. It implements
// planner.Planner and planner.TokenCounter. A Planner keeps the conversation of one run: make a new one
// per run (New is cheap). It is safe for concurrent use, but calls are serialised.
type Planner struct {
	cfg    Config
	client *client

	mu         sync.Mutex
	tokens     int
	turns      []turn
	shown      *shownPage // the observation whose text the conversation holds
	histSeen   int        // steps of Input.History already reported to the model
	rejections int        // unusable answers in a row
	served     string     // the model id the server reported in its latest answer
}

// Settings are what a Planner's requests ask of the server (its Config after defaults), for a run's
// provenance: the full endpoint (scheme, host and path; a BaseURL carries no credentials, query or
// fragment, New refuses them), the model name, the temperature, the answer's token cap (max_tokens)
// and the response format (schema mode).
type Settings struct {
	Endpoint       string  `json:"endpoint"`
	Model          string  `json:"model"`
	Temperature    float64 `json:"temperature"`
	MaxTokens      int     `json:"max_tokens"`
	ResponseFormat string  `json:"response_format"`
}

// Settings returns what the planner's requests ask for.
func (p *Planner) Settings() Settings {
	return Settings{Endpoint: p.client.endpoint, Model: p.cfg.Model, Temperature: p.cfg.Temperature,
		MaxTokens: p.cfg.MaxOutputTokens, ResponseFormat: p.cfg.ResponseFormat}
}

// ServedModel is the model id the server reported in its latest answer ("model" of the completion),
// which may differ from the name asked for (an alias, a dated snapshot); "" before any answer or
// when the server names none.
func (p *Planner) ServedModel() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

// shownPage is the last observation sent in full.
type shownPage struct {
	obs  *observe.Observation
	hash string
	step int
}

var (
	_ planner.Planner      = (*Planner)(nil)
	_ planner.TokenCounter = (*Planner)(nil)
)

// New validates cfg, fills its defaults and returns a Planner. Errors are *ConfigError naming the field.
func New(cfg Config) (*Planner, error) {
	cfg, endpoint, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = newHTTPClient()
	}
	return &Planner{cfg: cfg, client: &client{http: hc, endpoint: endpoint.String(), key: string(cfg.APIKey),
		retries: cfg.DialRetries, backoff: cfg.RetryBackoff}}, nil
}

// TokensUsed returns the tokens spent so far: the usage the API reported for each answer; for an
// answer without usage figures, and for a request that was sent but got no answer, an estimate of one
// token per three bytes of request and answer (an over-count rather than nothing).
func (p *Planner) TokensUsed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokens
}

// Next sends the goal, one line per step since the previous answer, and the observation (or "page
// unchanged since step N") and returns the model's action. Output that is not a usable action is a
// *planner.RejectedError; after Config.MaxRejections of them in a row, planner.ErrGaveUp. A transport
// failure or the end of ctx is a *TransportError.
func (p *Planner) Next(ctx context.Context, in planner.Input) (action.Action, error) {
	if in.Observation == nil {
		return action.Action{}, errors.New("llm planner: no observation")
	}
	p.mu.Lock()
	defer p.mu.Unlock()

	obs := in.Observation
	t := turn{step: len(p.turns) + 1, snapshot: obs.SnapshotID, since: p.since(in)}
	shown := p.shown
	if h := obs.Hash(); shown != nil && shown.hash == h {
		t.unchanged = shown.step
	} else {
		c, err := obs.Compact(observe.CompactOptions{MaxElements: p.cfg.MaxElements, IncludeText: true, MaxTextRunes: p.cfg.MaxTextRunes})
		if err != nil {
			return action.Action{}, fmt.Errorf("llm planner: compact the observation: %w", err)
		}
		t.page = "url: " + obs.URL + "\n" + c.Text
		shown = &shownPage{obs: obs, hash: h, step: t.step}
	}

	body, err := p.request(in.Goal, &t, shown.step)
	if err != nil {
		return action.Action{}, err
	}
	resp, raw, err := p.client.post(ctx, body)
	if err != nil {
		var te *TransportError
		if errors.As(err, &te) && te.Sent && te.Status == 0 {
			p.tokens += len(body) / 3 // sent, maybe processed and billed, no usage known
		}
		return action.Action{}, err
	}
	p.count(resp, len(body)+len(raw))
	if resp.Model != "" {
		p.served = resp.Model
	}

	content, a, rej := p.decide(resp, obs, shown)
	t.answer = excerpt(content, 2000)
	p.turns = append(p.turns, t)
	p.shown = shown
	p.histSeen = len(in.History)
	if rej != nil {
		rej.Output = p.client.redact(excerpt(content, 300))
		p.rejections++
		if p.rejections > p.cfg.MaxRejections {
			return action.Action{}, fmt.Errorf("%w: %d unusable answers in a row, the last: %s", planner.ErrGaveUp, p.rejections, rej.Reason)
		}
		return action.Action{}, rej
	}
	p.rejections = 0
	return a, nil
}

// since lists, one line each, the steps the loop recorded since the previous answer and the feedback.
func (p *Planner) since(in planner.Input) string {
	if p.histSeen > len(in.History) {
		p.histSeen = 0 // a new history: the caller started over
	}
	var b strings.Builder
	for i, s := range in.History[p.histSeen:] {
		fmt.Fprintf(&b, "step result %d: %s -> %s\n", p.histSeen+i+1, s.Action.String(), s.Outcome)
	}
	if in.Feedback != "" {
		fmt.Fprintf(&b, "feedback on your previous answer: %s\n", in.Feedback)
	}
	return strings.TrimRight(b.String(), "\n")
}

// request builds the body: the system prompt, every earlier turn (its observation only if it is still
// current) with the model's answer, and t. Each request gets a new frame boundary.
func (p *Planner) request(goal string, t *turn, shownStep int) ([]byte, error) {
	boundary := newBoundary()
	for p.containsBoundary(t, boundary) {
		boundary = newBoundary()
	}
	msgs := make([]message, 0, 2*len(p.turns)+2)
	msgs = append(msgs, message{Role: "system", Content: systemPrompt(goal, boundary)})
	for i := range p.turns {
		old := &p.turns[i]
		msgs = append(msgs, message{Role: "user", Content: old.userMessage(boundary, old.step == shownStep)},
			message{Role: "assistant", Content: old.answer})
	}
	msgs = append(msgs, message{Role: "user", Content: t.userMessage(boundary, true)})
	body, err := json.Marshal(chatRequest{Model: p.cfg.Model, Messages: msgs, Temperature: p.cfg.Temperature,
		MaxTokens: p.cfg.MaxOutputTokens, ResponseFormat: responseFormat(p.cfg.ResponseFormat)})
	if err != nil {
		return nil, fmt.Errorf("llm planner: encode the request: %w", err)
	}
	return body, nil
}

// containsBoundary reports whether any data of the conversation contains boundary (which would let
// it close a frame); with 96 random bits this never happens by chance.
func (p *Planner) containsBoundary(t *turn, boundary string) bool {
	for _, old := range append(p.turns[:len(p.turns):len(p.turns)], *t) {
		if strings.Contains(old.since, boundary) || strings.Contains(old.page, boundary) || strings.Contains(old.answer, boundary) {
			return true
		}
	}
	return false
}

// count adds the tokens of one answer.
func (p *Planner) count(resp *chatResponse, bytes int) {
	if u := resp.Usage; u != nil && (u.TotalTokens > 0 || u.PromptTokens+u.CompletionTokens > 0) {
		p.tokens += max(u.TotalTokens, u.PromptTokens+u.CompletionTokens)
		return
	}
	p.tokens += bytes / 3
}

// decide turns an answer into an action, or says why it is unusable.
func (p *Planner) decide(resp *chatResponse, obs *observe.Observation, shown *shownPage) (string, action.Action, *planner.RejectedError) {
	reject := func(format string, args ...any) *planner.RejectedError {
		return &planner.RejectedError{Reason: fmt.Sprintf(format, args...)}
	}
	if len(resp.Choices) == 0 {
		return "", action.Action{}, reject("the answer had no choices")
	}
	ch := resp.Choices[0]
	content := ""
	if ch.Message.Content != nil {
		content = strings.TrimSpace(*ch.Message.Content)
	}
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return *ch.Message.Refusal, action.Action{}, reject("the model refused: %s", excerpt(*ch.Message.Refusal, 200))
	case len(ch.Message.ToolCalls) > 0:
		return content, action.Action{}, reject("answered with a tool call; answer with one JSON action in the message content")
	case content == "":
		return "", action.Action{}, reject("empty answer; answer with one JSON action")
	case ch.FinishReason == "length":
		return content, action.Action{}, reject("the answer was cut at the output token limit; answer with one short JSON action")
	}
	a, err := action.ParseOn([]byte(content), obs.URL)
	if err != nil {
		return content, action.Action{}, reject("%s; answer with exactly one JSON action object and no other fields", err)
	}
	if a.Ref != "" {
		a.Ref = mapRef(a.Ref, obs, shown)
	}
	return content, a, nil
}

// mapRef maps a ref the model took from the observation it was shown onto the current one. When
// the page is unchanged (same hash) the two observations list the same nodes in the same order, so
// a node is found by position; its role and name are compared again, fail-closed. Any other ref is
// returned as it is: the loop alone resolves refs, and rejects an unknown or stale one under its rule.
func mapRef(ref string, cur *observe.Observation, shown *shownPage) string {
	if _, err := cur.Lookup(ref); err == nil {
		return ref
	}
	if shown != nil && shown.obs != cur {
		for i := range shown.obs.Nodes {
			if shown.obs.Nodes[i].Ref != ref {
				continue
			}
			if i < len(cur.Nodes) && cur.Nodes[i].HasRef() && cur.Nodes[i].Role == shown.obs.Nodes[i].Role && cur.Nodes[i].Name == shown.obs.Nodes[i].Name {
				return cur.Nodes[i].Ref
			}
			break
		}
	}
	return ref
}
