package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	loadedExt = "nojedoafjbgfeojhcbdfeoeokgabgldh" // Stagehand Runtime's id in the run that found this
	otherExt  = "abcdefghijklmnopabcdefghijklmnop"
)

// fakeDevTools stands for a browser's DevTools endpoint: it upgrades any WebSocket request and
// records the Origin each arrived with.
type fakeDevTools struct {
	*httptest.Server
	mu      sync.Mutex
	origins []string
}

func newFakeDevTools(t *testing.T) *fakeDevTools {
	f := &fakeDevTools{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.origins = append(f.origins, r.Header.Get("Origin"))
		f.mu.Unlock()
		if r.Header.Get("Upgrade") != "websocket" {
			_, _ = io.WriteString(w, `[{"type":"page"}]`)
			return
		}
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "+
			acceptFor(r.Header.Get("Sec-WebSocket-Key"))+"\r\n\r\n") // a genuine handshake (upgrade.go)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeDevTools) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.origins...)
}

func loaded(ids ...string) func(context.Context) ([]string, error) {
	return func(context.Context) ([]string, error) { return ids, nil }
}

// upgradeThroughTunnel CONNECTs to hostport and asks for a WebSocket upgrade of path inside the
// tunnel, with origin as its Origin ("" for none); it returns the upgrade's status.
func upgradeThroughTunnel(t *testing.T, p *Proxy, hostport, path, origin string) int {
	t.Helper()
	conn, br, resp := rawConnect(t, p, hostport)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode
	}
	req := "GET " + path + " HTTP/1.1\r\nHost: " + hostport + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	if origin != "" {
		req += "Origin: " + origin + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	up, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return up.StatusCode
}

// lastDecision is p's last decision about a request (a WebSocket's closing line, method WEBSOCKET,
// left out: it may come before or after the next request's).
func lastDecision(t *testing.T, p *Proxy) Decision {
	t.Helper()
	ds := slices.DeleteFunc(p.Decisions(), func(d Decision) bool { return d.Method == "WEBSOCKET" })
	if len(ds) == 0 {
		t.Fatal("no decision logged")
	}
	return ds[len(ds)-1]
}

// The door admits the loaded extension's upgrade, logged as devtools_door, and forwards it without
// its Origin (Chromium refuses a DevTools WebSocket with an Origin it was not told to allow).
func TestDevToolsDoorAdmitsTheLoadedExtension(t *testing.T) {
	dt := newFakeDevTools(t)
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test")})
	if _, err := p.AdmitDevTools(DevToolsDoor{HostPort: dt.Listener.Addr().String(), ExtensionIDs: loaded(loadedExt)}); err != nil {
		t.Fatal(err)
	}
	if st := upgradeThroughTunnel(t, p, dt.Listener.Addr().String(), "/devtools/browser/x", "chrome-extension://"+loadedExt); st != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade from the loaded extension: %d, want 101", st)
	}
	d := lastDecision(t, p)
	if !d.Allowed() || d.Rule != RuleDevToolsDoor || d.Scheme != "ws" || !strings.Contains(d.Reason, loadedExt) {
		t.Errorf("decision %+v, want an allowed ws devtools_door naming the extension", d)
	}
	if got := dt.seen(); len(got) != 1 || got[0] != "" {
		t.Errorf("DevTools saw Origins %q, want one request with none", got)
	}
}

// Everything else to the port is refused by the door and reaches nothing: a page's WebSocket (its
// Origin is the page's), another extension's, one with no Origin, a plain fetch of /json/list (with
// or without a CONNECT), a non-devtools path.
func TestDevToolsDoorRefusesPagesAndOtherExtensions(t *testing.T) {
	dt := newFakeDevTools(t)
	hp := dt.Listener.Addr().String()
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test")})
	if _, err := p.AdmitDevTools(DevToolsDoor{HostPort: hp, ExtensionIDs: loaded(loadedExt)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, origin, why string }{
		{"a page's WebSocket", "/devtools/browser/x", "http://portale.interno.test", "not an extension's"},
		{"another extension", "/devtools/browser/x", "chrome-extension://" + otherExt, "not loaded in this browser"},
		{"a forged look-alike", "/devtools/browser/x", "chrome-extension://" + loadedExt + ".evil", "not an extension's"},
		{"no Origin", "/devtools/browser/x", "", "0 Origin headers"},
		{"a non-devtools path", "/json/new", "chrome-extension://" + loadedExt, "not a /devtools/ endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if st := upgradeThroughTunnel(t, p, hp, c.path, c.origin); st != http.StatusForbidden {
				t.Errorf("status %d, want 403", st)
			}
			d := lastDecision(t, p)
			if d.Allowed() || d.Rule != RuleDevToolsDoor || !strings.Contains(d.Reason, c.why) {
				t.Errorf("decision %+v, want a devtools_door denial saying %q", d, c.why)
			}
		})
	}
	// A page's fetch of the port (a plain proxy request, not an upgrade).
	resp, _ := send(t, proxiedClient(t, p), newRequest(t, http.MethodGet, "http://"+hp+"/json/list", nil))
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(RuleDevToolsDoor) {
		t.Errorf("a page's fetch of /json/list: %d %s, want 403 devtools_door", resp.StatusCode, resp.Header.Get(RuleHeader))
	}
	if got := dt.seen(); len(got) != 0 {
		t.Errorf("DevTools was reached %d times, want never: %q", len(got), got)
	}
}

// Closed, the door is gone: the port is unmapped again; a door's extension lookup that fails is a
// refusal; a door to a non-loopback address, a name or a world host cannot be opened.
func TestDevToolsDoorClosesAndFailsClosed(t *testing.T) {
	dt := newFakeDevTools(t)
	hp := dt.Listener.Addr().String()
	p := startProxy(t, Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": "127.0.0.1:9"}})
	closeDoor, err := p.AdmitDevTools(DevToolsDoor{HostPort: hp, ExtensionIDs: func(context.Context) ([]string, error) { return nil, errors.New("browser gone") }})
	if err != nil {
		t.Fatal(err)
	}
	if st := upgradeThroughTunnel(t, p, hp, "/devtools/browser/x", "chrome-extension://"+loadedExt); st != http.StatusForbidden {
		t.Errorf("lookup failed: status %d, want 403", st)
	}
	if d := lastDecision(t, p); d.Allowed() || !strings.Contains(d.Reason, "browser gone") {
		t.Errorf("decision %+v, want a refusal naming the lookup's error", d)
	}
	closeDoor()
	if st := upgradeThroughTunnel(t, p, hp, "/devtools/browser/x", "chrome-extension://"+loadedExt); st != http.StatusForbidden {
		t.Errorf("after close: status %d, want 403", st)
	}
	if d := lastDecision(t, p); d.Allowed() || d.Rule == RuleDevToolsDoor {
		t.Errorf("after close: decision %+v, want the port refused as any unmapped one", d)
	}
	for _, hp := range []string{"192.0.2.1:9222", "portale.interno.test:80", "localhost:9222", "127.0.0.1:0"} {
		if _, err := p.AdmitDevTools(DevToolsDoor{HostPort: hp, ExtensionIDs: loaded(loadedExt)}); err == nil {
			t.Errorf("AdmitDevTools(%s) opened a door", hp)
		}
	}
	if got := dt.seen(); len(got) != 0 {
		t.Errorf("DevTools was reached: %q", got)
	}
}
