package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/jsonl"
)

// DecisionVersion is the value of Decision.V for the records this package writes.
const DecisionVersion = 1

// The choices of a Decision (its Choice).
const (
	Allow = "allow"
	Deny  = "deny"
)

// Rules the proxy decides by itself, next to the policy's own; all are registered in policy.Registry.
const (
	// RuleDefaultDeny denies everything when Config.Rules is nil.
	RuleDefaultDeny = policy.RuleDefaultDeny
	// RuleUnmappedHost denies a destination missing from Config.Hosts, even if the rules allow it.
	RuleUnmappedHost = policy.RuleUnmappedHost
	// RuleNotAProxyRequest denies a request addressed to the proxy itself (origin-form, not a
	// proxy request).
	RuleNotAProxyRequest = policy.RuleNotAProxyRequest
	// RuleRulesPanic denies a request whose Rules method panicked: the proxy fails closed.
	RuleRulesPanic = policy.RuleRulesPanic
	// RuleTunnelUnjudged refuses an allowed CONNECT whose content the proxy cannot judge request by
	// request: the client failed the TLS handshake with the proxy's CA, or spoke neither TLS nor
	// HTTP in it (mitm.go).
	RuleTunnelUnjudged = policy.RuleTunnelUnjudged
	// RuleTunnelHost refuses a request inside a CONNECT tunnel that names another host or port than
	// the tunnel's.
	RuleTunnelHost = policy.RuleTunnelHost
	// RuleForgedInternalHeader refuses an upstream response that carried an X-Trapline-* header,
	// which only the proxy writes.
	RuleForgedInternalHeader = policy.RuleForgedInternalHeader
	// RuleDevToolsDoor admits or refuses a request to the DevTools port of Proxy.AdmitDevTools.
	RuleDevToolsDoor = policy.RuleDevToolsDoor
)

// Decision is one allow/deny decision of the proxy: a versioned log record, written as one JSON
// line to Config.Log; the latest Config.KeepDecisions are also kept in memory (Proxy.Decisions).
type Decision struct {
	// V is the record version, DecisionVersion.
	V int `json:"v"`
	// Time is when the decision was made (UTC).
	Time time.Time `json:"time"`
	// Method is the request method; CONNECT for tunnels; WEBSOCKET for the line that ends a switched
	// WebSocket connection (its messages counted, upgrade.go).
	Method string `json:"method"`
	// Scheme is http or https for a request (ws or wss for a WebSocket upgrade), whether it came as
	// a plain proxy request or from inside an intercepted CONNECT tunnel (https when the client spoke
	// TLS there). For the CONNECT itself it is https when the port is 443 and tunnel otherwise
	// (Chromium tunnels ws:// this way); a refused tunnel says what the client spoke (https or
	// tunnel).
	Scheme string `json:"scheme"`
	// Host is the normalised destination host (lower case, no trailing dot), with its port if that
	// is not the scheme's default.
	Host string `json:"host"`
	// Path is the URL path of a request; empty for a CONNECT.
	Path string `json:"path"`
	// Choice is Allow or Deny. Its JSON key stays "verdict", as every proxy log has written it; in
	// Go, "verdict" is only results.Verdict (docs/architecture.md's glossary).
	Choice string `json:"verdict"`
	// Rule is the rule behind the choice: a policy.Rule or one of this package's Rule constants.
	Rule policy.Rule `json:"rule"`
	// Reason explains the choice for a human.
	Reason string `json:"reason"`
}

// Allowed reports whether the decision let the request through.
func (d Decision) Allowed() bool { return d.Choice == Allow }

// recorder writes every decision to the JSON log and keeps the latest keep of them in memory (a
// ring), in one order: a long-running proxy's memory does not grow with its traffic.
type recorder struct {
	mu      sync.Mutex
	ring    []Decision // the kept decisions; once full, ring[next] is the oldest
	keep    int
	next    int
	dropped int // decisions no longer kept in memory (they are in the log)
	out     io.Writer
	logErr  error
}

func newRecorder(out io.Writer, keep int) *recorder {
	return &recorder{keep: keep, out: out}
}

// record stamps d, writes it to the JSON log and keeps it in memory, dropping the oldest kept
// decision when keep are kept already. The fields a client fills (a URL's host and path, a reason
// that quotes them) are cut to jsonl.MaxField with a marker: a page's 600 KB URL neither grows the
// memory nor makes a line the log's readers refuse (issue 49.10).
func (r *recorder) record(d Decision) {
	d.V = DecisionVersion
	d.Time = time.Now().UTC()
	d.Method, d.Scheme, d.Host = jsonl.Field(d.Method), jsonl.Field(d.Scheme), jsonl.Field(d.Host)
	d.Path, d.Reason = jsonl.Field(d.Path), jsonl.Field(d.Reason)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.keep <= 0:
		r.dropped++
	case len(r.ring) < r.keep:
		r.ring = append(r.ring, d)
	default:
		r.ring[r.next] = d
		r.next = (r.next + 1) % r.keep
		r.dropped++
	}
	if r.out == nil || r.logErr != nil {
		return
	}
	if err := r.write(d); err != nil {
		r.logErr = fmt.Errorf("write decision log: %w", err)
	}
}

// write writes d as one JSON line, HTML left unescaped, bounded by jsonl.Bound.
func (r *recorder) write(d Decision) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return err
	}
	line := append(jsonl.Bound(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), '\n')
	_, err := r.out.Write(line)
	return err
}

// decisions returns a copy of the kept decisions, oldest first, and how many earlier ones were
// dropped from memory.
func (r *recorder) decisions() ([]Decision, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Decision, 0, len(r.ring))
	out = append(out, r.ring[r.next:]...)
	out = append(out, r.ring[:r.next]...)
	return out, r.dropped
}

// droppedCount returns how many decisions are no longer kept in memory.
func (r *recorder) droppedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// err returns the first error writing the JSON log.
func (r *recorder) err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logErr
}
