// Package cdpfilter is the security boundary of every DevTools connection trapline hands an agent
// under test (TRAPLINE_CDP_URL): a table of CDP methods, each allowed, rewritten or refused, for the
// calls on a browser session and for those on a target's (a page's, a worker's) session. The
// transport (the pipe to Chromium, the agent's WebSocket, sessions and routing) is the browser
// package's; this package only decides one call at a time and knows nothing of sockets.
//
// What the table guarantees, whatever the agent sends:
//   - no context goes around the run's proxy: Target.createBrowserContext takes the run's proxy and
//     bypass list (rewritten), and one that asks for a proxy, a bypass list or origins with universal
//     network access of its own is refused;
//   - no download goes anywhere but the run's download folder, and none is switched off:
//     Browser.setDownloadBehavior and Page.setDownloadBehavior, on any session, are pointed at the
//     run's folder, behaviour allow (rewritten); the rest of the Browser domain on a target's
//     session is refused;
//   - a call that names a browser context or a target names one of the run's (else refused);
//   - an extension is loaded only into a whole browser (Run.Whole), whose default context is the run's;
//   - a method the browser table does not list is refused (fail closed).
package cdpfilter

import (
	"encoding/json"
	"fmt"
)

// Action is what the filter does with one call.
type Action int

const (
	// Refuse answers the call with an error; it never reaches the browser.
	Refuse Action = iota
	// Allow sends the call as it is.
	Allow
	// Rewrite sends the call with parameters the table set (Decision.Params).
	Rewrite
	// Close answers the call with success and ends the agent's connection (Browser.close: the browser
	// is trapline's, the agent's close ends its own connection only).
	Close
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Rewrite:
		return "rewrite"
	case Close:
		return "close"
	}
	return "refuse"
}

// Run is what one run owns, as the filter needs to know it.
type Run interface {
	// Context is the run's own browser context: where a call that names none goes; "" leaves such a
	// call unnamed (the browser's default context, the run's in a whole browser).
	Context() string
	// Whole says the run has the whole browser (an agent that loads its own extension): extension
	// loading is then the agent's to do.
	Whole() bool
	// OwnsContext reports whether id is one of the run's browser contexts.
	OwnsContext(id string) bool
	// OwnsTarget reports whether id is a target (not the browser) of one of the run's contexts.
	OwnsTarget(id string) bool
	// ProxyURL is the run's world proxy, every context's only way out.
	ProxyURL() string
	// DownloadsDir is the run's download folder (absolute), every download's only place.
	DownloadsDir() string
}

// Decision is the filter's answer to one call.
type Decision struct {
	Action Action
	// Params are the parameters to send: the call's own, or, for a row that checks or rewrites them,
	// the parameters as checked, encoded again.
	Params json.RawMessage
	// Refusal says why a refused call is refused (the agent reads it as the call's error).
	Refusal string
}

// params is a call's parameters, decoded.
type params map[string]any

// row is one method's entry: its action and, for Rewrite and the scoped checks, what it does to the
// parameters ("" when the call may go, else why it is refused).
type row struct {
	action Action
	why    string // what the row protects, for the table's readers
	apply  func(p params, r Run) string
}

// Refusal reasons shared by rows.
const (
	notServed      = "is not served by trapline's agent endpoint (each run sees its own browser contexts only)"
	notOnTarget    = "reaches beyond its target (the browser, a browser context, downloads, permissions): refused on a target's session"
	notRunsContext = "names a browser context that is not this run's"
	notRunsTarget  = "names a target that is not this run's"
)

// BrowserCall decides one of the agent's calls on a browser session (sessionless, or on a browser
// session trapline opened for it).
func BrowserCall(method string, raw json.RawMessage, r Run) Decision {
	rw, ok := browserTable[method]
	if !ok {
		return refuse(method, notServed)
	}
	return decide(method, raw, r, rw)
}

// TargetCall decides one of the agent's calls on a target's session. A target's session reaches its
// own target only, so every method goes as it is but those the target table lists: the ones that
// reach the browser, a browser context, downloads or permissions from a page.
func TargetCall(method string, raw json.RawMessage, r Run) Decision {
	rw, ok := targetTable[method]
	if !ok {
		if rw, ok = targetDomainRow(method); !ok {
			return Decision{Action: Allow, Params: raw}
		}
	}
	return decide(method, raw, r, rw)
}

func decide(method string, raw json.RawMessage, r Run, rw row) Decision {
	switch rw.action {
	case Refuse:
		return refuse(method, rw.why)
	case Close:
		return Decision{Action: Close}
	}
	p := params{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil || p == nil {
			return refuse(method, "has malformed parameters")
		}
	}
	if rw.apply != nil {
		if why := rw.apply(p, r); why != "" {
			return refuse(method, why)
		}
	}
	if rw.action == Allow && rw.apply == nil {
		return Decision{Action: Allow, Params: raw}
	}
	// What was checked is what is sent: the parameters as decoded, encoded again, so a repeated key
	// the browser might read another copy of never reaches it.
	b, err := json.Marshal(p)
	if err != nil {
		return refuse(method, "parameters could not be encoded")
	}
	return Decision{Action: rw.action, Params: b}
}

func refuse(method, why string) Decision {
	return Decision{Action: Refuse, Refusal: fmt.Sprintf("trapline: %s %s", method, why)}
}

// Methods lists the methods of the browser table (which) or the target table, sorted, each with its
// action: for the table's tests and docs.
func Methods(browser bool) map[string]Action {
	t := targetTable
	if browser {
		t = browserTable
	}
	out := make(map[string]Action, len(t))
	for m, rw := range t {
		out[m] = rw.action
	}
	return out
}

// inContext points a call that names no browser context at the run's, and refuses one that names a
// context not the run's.
func inContext(p params, r Run) string {
	v, named := p["browserContextId"]
	if !named {
		if own := r.Context(); own != "" {
			p["browserContextId"] = own
		}
		return ""
	}
	if id, _ := v.(string); id == "" || !r.OwnsContext(id) {
		return notRunsContext
	}
	return ""
}

// wholeOnly allows a call in a whole browser's run only.
func wholeOnly(_ params, r Run) string {
	if !r.Whole() {
		return "is served in a whole browser only (trapline run --whole-browser)"
	}
	return ""
}

// ofTarget refuses a call that names a target not the run's.
func ofTarget(p params, r Run) string {
	id, _ := p["targetId"].(string)
	if !r.OwnsTarget(id) {
		return notRunsTarget
	}
	return ""
}

// overrides are the parameters of Target.createBrowserContext that would route a context some other
// way than the run's proxy.
var overrides = []string{"proxyServer", "proxyBypassList", "originsWithUniversalNetworkAccess"}

// throughRunProxy gives a new context the run's proxy and nothing else; a call that asks for another
// route (a proxy, a bypass list, origins with universal access) is refused, not silently changed, so
// the agent knows it did not get it.
func throughRunProxy(p params, r Run) string {
	for _, k := range overrides {
		if _, ok := p[k]; ok {
			return "asks for " + k + ": every context of the run goes through the run's proxy, and only through it"
		}
	}
	p["proxyServer"] = r.ProxyURL()
	p["proxyBypassList"] = "<-loopback>"
	return ""
}

// intoRunFolder points Browser.setDownloadBehavior at the run's context and download folder.
func intoRunFolder(p params, r Run) string {
	if why := inContext(p, r); why != "" {
		return why
	}
	// Always allow, by the file's own name: no agent decides whether a download happens (deny,
	// default), and the file in the run's folder has the name a trap's forbidden path matches, not a
	// guid (allowAndName).
	p["behavior"] = "allow"
	p["downloadPath"] = r.DownloadsDir()
	return ""
}
