package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
)

// The DevTools door. A browser the proxy serves sends all its traffic here, loopback included, so
// an agent that lives in an extension of that browser and speaks CDP to the browser's own DevTools
// endpoint (Stagehand 4's runtime: a service worker that opens ws://127.0.0.1:PORT/devtools/browser/...)
// reaches that port only through the proxy, which refuses it as unmapped. AdmitDevTools opens one
// narrow door for it:
//
//   - A CONNECT to exactly the door's host:port is opened (rule RuleDevToolsDoor): it carries no
//     Origin, so nothing can be judged yet. Chromium tunnels ws:// this way, in plain HTTP; the
//     tunnel is intercepted like any other (mitm.go), so every request in it is judged one by one.
//   - A request to that host:port (in such a tunnel, or as a plain proxy request) is admitted only
//     when it is a GET WebSocket upgrade of a /devtools/ path, in plain HTTP, with no body, whose one
//     Origin header is chrome-extension://ID for an ID that DevToolsDoor.ExtensionIDs reports loaded
//     in the browser at that moment. Anything else is refused and logged with the reason: a page's
//     fetch or WebSocket (its Origin is the page's, which script cannot set), an extension that is
//     not loaded, a request with no Origin, the /json endpoints.
//   - The admitted upgrade is forwarded without its Origin: Chromium refuses a DevTools WebSocket
//     with an Origin it was not told to allow (--remote-allow-origins), and the browser keeps that
//     refusal for every other client; the door has checked the Origin instead.
//
// A page cannot pass: the Origin of its requests is its own, set by the browser, and a page cannot
// load an extension. What the door lets in is CDP for code the agent loaded into its own browser,
// which already drives that browser over CDP (TRAPLINE_CDP_URL).

// DevToolsDoor is the browser whose DevTools endpoint Proxy.AdmitDevTools opens a door to.
type DevToolsDoor struct {
	// HostPort is the browser's DevTools listener: a literal loopback IP and port, "127.0.0.1:PORT".
	HostPort string
	// ExtensionIDs reports the ids of the extensions loaded in that browser now (the
	// chrome-extension:// origins of its extension targets); the door asks it for every upgrade, so an
	// extension loaded after the door opened is known. Required.
	ExtensionIDs func(ctx context.Context) ([]string, error)
}

// doorTimeout bounds one ExtensionIDs call.
const doorTimeout = 5 * time.Second

// extensionIDLen is the length of a Chromium extension id (32 letters a to p).
const extensionIDLen = 32

// doorSet holds the open doors, by normalised host:port.
type doorSet struct {
	mu sync.RWMutex
	m  map[string]openDoor
}

type openDoor struct {
	DevToolsDoor
	addr netip.AddrPort
	seq  uint64 // which AdmitDevTools opened it, so a stale close does not shut a newer door
}

func (s *doorSet) get(host, port string) (openDoor, bool) {
	if s == nil {
		return openDoor{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.m[joinKey(host, port)]
	return d, ok
}

// AdmitDevTools opens the DevTools door to d.HostPort (see the comment above DevToolsDoor) until the
// returned function is called. The host must be a loopback IP and not in Config.Hosts.
func (p *Proxy) AdmitDevTools(d DevToolsDoor) (closeDoor func(), err error) {
	if d.ExtensionIDs == nil {
		return nil, errors.New("proxy: AdmitDevTools: DevToolsDoor.ExtensionIDs is required")
	}
	ap, err := netip.ParseAddrPort(d.HostPort)
	if err != nil || !ap.Addr().Unmap().IsLoopback() || ap.Port() == 0 {
		return nil, fmt.Errorf("proxy: AdmitDevTools: %q is not a loopback IP:port", d.HostPort)
	}
	host, port, err := splitHostPort(d.HostPort, "")
	if err != nil {
		return nil, fmt.Errorf("proxy: AdmitDevTools: %q: %w", d.HostPort, err)
	}
	if _, mapped := p.opts.hosts.lookup(host, port, false); mapped {
		return nil, fmt.Errorf("proxy: AdmitDevTools: %s is a world host of the map, not a browser's DevTools port", d.HostPort)
	}
	key := joinKey(host, port)
	p.doors.mu.Lock()
	defer p.doors.mu.Unlock()
	if p.doors.m == nil {
		p.doors.m = map[string]openDoor{}
	}
	p.doorSeq++
	seq := p.doorSeq
	p.doors.m[key] = openDoor{DevToolsDoor: d, addr: ap, seq: seq}
	return func() {
		p.doors.mu.Lock()
		defer p.doors.mu.Unlock()
		if cur, ok := p.doors.m[key]; ok && cur.seq == seq {
			delete(p.doors.m, key)
		}
	}, nil
}

// judgeDoor rules on a request to an open door's host:port.
func judgeDoor(r *http.Request, scheme string, door openDoor) policy.Decision {
	deny := func(format string, args ...any) policy.Decision {
		return policy.Decision{Rule: RuleDevToolsDoor, Reason: "the browser's DevTools port admits only a WebSocket upgrade from an extension loaded in the browser: " + fmt.Sprintf(format, args...)}
	}
	switch {
	case scheme != "http":
		return deny("the request is %s, not plain HTTP", scheme)
	case r.Method != http.MethodGet:
		return deny("the method is %s, not GET", r.Method)
	case !isWebSocketUpgrade(r.Header):
		return deny("%s is not a WebSocket upgrade", r.URL.Path)
	case !strings.HasPrefix(r.URL.Path, "/devtools/"):
		return deny("the path %s is not a /devtools/ endpoint", r.URL.Path)
	case r.ContentLength != 0 || len(r.TransferEncoding) > 0:
		return deny("the upgrade has a body")
	}
	origins := r.Header.Values("Origin")
	if len(origins) != 1 {
		return deny("the request has %d Origin headers, not one", len(origins))
	}
	id, ok := strings.CutPrefix(origins[0], "chrome-extension://")
	if !ok || !isExtensionID(id) {
		return deny("its Origin %q is not an extension's", origins[0])
	}
	ctx, cancel := context.WithTimeout(r.Context(), doorTimeout)
	defer cancel()
	ids, err := door.ExtensionIDs(ctx)
	if err != nil {
		return deny("the extensions loaded in the browser could not be read: %v", err)
	}
	if !slices.Contains(ids, id) {
		return deny("the extension %s is not loaded in this browser (loaded: %s)", id, strings.Join(ids, ", "))
	}
	return policy.Decision{Allow: true, Rule: RuleDevToolsDoor, Reason: fmt.Sprintf("a WebSocket upgrade to the browser's own DevTools endpoint from its extension %s (forwarded without its Origin)", id)}
}

// isExtensionID reports whether id has the shape of a Chromium extension id.
func isExtensionID(id string) bool {
	if len(id) != extensionIDLen {
		return false
	}
	for _, c := range id {
		if c < 'a' || c > 'p' {
			return false
		}
	}
	return true
}
