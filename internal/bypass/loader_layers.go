package bypass

import (
	"fmt"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/proxy"
)

// layerPoll is how often Loader re-reads the gate's violations and the proxy's log, which notify no
// one: a wait on those conditions, bounded by SettleTimeout.
const layerPoll = 50 * time.Millisecond

// allowGrace is how long an allowed probe is left to its own end (a browser event) before the proxy's
// allow settles it.
const allowGrace = 2 * time.Second

// pollLayers settles w when the route gate recorded a violation for the probe or the proxy log has a
// decision on it, until stop is closed. A proxy log that cannot be read yet (missing, or a line
// still being written) is read again at the next tick: unknown is not absent.
func (w *watch) pollLayers(stop <-chan struct{}, sess *browser.Session) {
	t := Technique{Probe: w.probe}
	var allowedAt time.Time // when the proxy log first showed the probe allowed
	tick := time.NewTicker(layerPoll)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-w.settled:
			return
		case <-tick.C:
		}
		if how, ok := gateSettled(w.probe, sess.Violations()); ok {
			w.settle(how)
			return
		}
		if ds, err := ReadProxyLog(sess.EvidenceDir()); err == nil {
			if p := t.ProbeDecisions(ds); len(p) > 0 {
				d := p[0]
				how := fmt.Sprintf("%s %s%s: the proxy decided %s (%s)", d.Method, d.Host, d.Path, d.Choice, d.Rule)
				// A refusal ends the probe. An allow is only the start of it: what the request does next
				// (a WebSocket's message reaching the canary, its close) settles it, and the allow settles
				// it only when nothing else has within allowGrace (it settled the proxy-off arm before the
				// canary saw the message, under load).
				if d.Choice != proxy.Allow {
					w.settle(how)
					return
				}
				if allowedAt.IsZero() {
					allowedAt = time.Now()
				} else if time.Since(allowedAt) >= allowGrace {
					w.settle(how)
					return
				}
			}
		}
	}
}

// gateSettled finds the first route-gate violation for the probe.
func gateSettled(p Probe, vs []evidence.Violation) (string, bool) {
	for _, v := range vs {
		if v.ByRouteGate() && p.MatchURL(v.URL) {
			return fmt.Sprintf("%s %s: the route gate refused it (%s): %s", v.Method, v.URL, v.Rule, v.Reason), true
		}
	}
	return "", false
}
