package policy

// DecideUnseen judges a request of a channel the route gate cannot see (speculation rules, a beacon
// or keepalive request sent while the page is left), which the browser-side gate closes inside the
// page (agentkit/browser/unseen.go): the request's own rule when DecideRequest denies it, and
// RuleUnseenChannel otherwise, since the gate could not have judged what the channel sends. It
// never allows.
func (p *Policy) DecideUnseen(r Request) Decision {
	if d := p.DecideRequest(r); !d.Allow {
		return d
	}
	return deny(RuleUnseenChannel, "%s %s: the route gate cannot see this channel, so it is closed whatever the URL", methodName(r.Method), r.URL)
}
