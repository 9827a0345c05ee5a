// Package world starts a complete staging world for one run: the trap-laden sites (package fixtures),
// the canary outside sites, and the egress proxy that is the world's only way out, configured from the
// same policy file as the agent.
//
//	var l world.Launcher = world.Embedded{} // or container.New(...) for the world in containers
//	w, err := l.Launch(ctx, world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: trap.Mounts}, Dir: dir, Source: world.Source{ID: trap.ID}})
//	if err != nil { return err }
//	defer w.Close()
//	// point a browser context at w.ProxyURL(), open w.URL("/pratiche"), then ask w.Effects().
//
// Two launchers implement the same interface: Embedded (the default) runs everything in this process
// on random loopback ports; package internal/container runs the same binaries' code in containers on an
// internal Docker network. Worlds share nothing, so parallel processes never collide.
package world

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
)

// ProxyLogFile is the proxy's decision log inside the world's folder.
const ProxyLogFile = "proxy.jsonl"

// Spec describes a world to start.
type Spec struct {
	// Policy configures the proxy; nil makes a proxy that denies everything.
	Policy *policy.Policy
	// Fixtures configures the sites (pratiche, shifted record, trap mounts).
	Fixtures fixtures.Config
	// Source is where Fixtures comes from, in a form that crosses a process boundary (see Source): a
	// launcher that runs the sites in another process ships it and the sites rebuild Fixtures from it
	// (handlers cannot cross), then check Fixtures.Fingerprint. The embedded launcher ignores it.
	Source Source
	// Dir receives the proxy decision log; required.
	Dir string
	// ProxyListen is the proxy's listen address; default 127.0.0.1:0 (a random port). Embedded only.
	ProxyListen string
	// CA is the CA the world's proxy intercepts CONNECT tunnels with (proxy.Config.CA): the one the
	// browser that visits this world trusts (browser.Browser.CA), so HTTPS is judged request by
	// request there. Nil makes a fresh CA for this world alone, which no browser trusts: HTTPS is
	// then refused (tunnel_unjudged), never passed blind. A container world ships it (key included)
	// to its proxy's container (trapline proxy --ca).
	CA *proxy.CA
	// Off switches guards off; the world reads policy.GuardProxyRules: every mapped host goes through
	// the proxy (which still dials only the world's own listeners). For control arms and
	// defense-in-depth specs only.
	Off policy.GuardsOff
}

// World is a running staging world, whichever launcher started it.
type World interface {
	// ProxyURL is the URL a browser must use as its proxy: the world's only entrance.
	ProxyURL() string
	// URL returns the browser-facing URL of a portal path, e.g. http://portale.interno.test/pratiche.
	URL(path string) string
	// Hosts returns the world's fake host names (portal, static, canaries): the only destinations its
	// proxy can reach.
	Hosts() []string
	// Effects returns every effect the backend and the canaries recorded, oldest first. It also works
	// after Close (the last reading before the world stopped). An error means the effects are unknown,
	// never that there were none.
	Effects() ([]fixtures.Effect, error)
	// ProxyDecisions returns the proxy's decision log; after Close too. An error means unknown.
	ProxyDecisions() ([]proxy.Decision, error)
	// AuditURL is the audit endpoint as seen from where the world runs; the browser cannot reach it.
	AuditURL() string
	// Close stops the world and frees everything it holds. After Close, Effects and ProxyDecisions
	// return what was recorded.
	Close() error
}

// Launcher starts worlds.
type Launcher interface {
	// Launch starts a world described by spec; on error nothing is left running.
	Launch(ctx context.Context, spec Spec) (World, error)
	// Name says which launcher this is ("embedded", "container"), for logs and reports.
	Name() string
}

// Embedded is the default launcher: the world runs in this process, on random loopback ports.
type Embedded struct{}

// Launch is Start.
func (Embedded) Launch(_ context.Context, spec Spec) (World, error) { return Start(spec) }

// Name returns "embedded".
func (Embedded) Name() string { return "embedded" }

// Local is a world running in this process, started by Start.
type Local struct {
	sites *fixtures.Sites
	px    *proxy.Proxy
	log   *os.File
	token string // the proxy's mark on the requests it lets through (fixtures.Admission)
}

var _ World = (*Local)(nil)

// Start starts the sites and the proxy in front of them, in this process.
func Start(spec Spec) (*Local, error) {
	if spec.Dir == "" {
		return nil, errors.New("world: Spec.Dir is required")
	}
	if err := os.MkdirAll(spec.Dir, 0o700); err != nil { // the run's evidence folder: its owner's only
		return nil, fmt.Errorf("world: create %s: %w", spec.Dir, err)
	}
	token, err := newWorldToken()
	if err != nil {
		return nil, err
	}
	fx := spec.Fixtures
	fx.Admission = fixtures.Admission{Header: proxy.WorldTokenHeader, Token: token}
	sites, err := fixtures.StartSites(fx)
	if err != nil {
		return nil, fmt.Errorf("world: start sites: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(spec.Dir, ProxyLogFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		_ = sites.Close()
		return nil, fmt.Errorf("world: create proxy log: %w", err)
	}
	var rules proxy.Rules
	switch {
	case spec.Off.Has(policy.GuardProxyRules):
		rules = AllowAll{}
	case spec.Policy != nil:
		rules = spec.Policy
	}
	px, err := proxy.Start(proxy.Config{Rules: rules, Hosts: sites.Hosts(), Log: f, Listen: spec.ProxyListen, CA: spec.CA, WorldToken: token})
	if err != nil {
		_ = f.Close()
		_ = sites.Close()
		return nil, fmt.Errorf("world: start proxy: %w", err)
	}
	return &Local{sites: sites, px: px, log: f, token: token}, nil
}

// newWorldToken is a world's secret mark (fixtures.Admission): 32 random bytes, hex.
func newWorldToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("world: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ProxyURL is the URL a browser must use as its proxy.
func (w *Local) ProxyURL() string { return w.px.URL() }

// URL returns the browser-facing URL of a portal path, e.g. http://portale.interno.test/pratiche.
func (w *Local) URL(path string) string { return w.sites.URL(fixtures.PortalHost, path) }

// CA is the CA the world's proxy intercepts HTTPS with (Spec.CA, or the one it made).
func (w *Local) CA() *proxy.CA { return w.px.CA() }

// Effects returns every effect the backend and the canaries recorded. In process, the reading
// cannot fail.
func (w *Local) Effects() ([]fixtures.Effect, error) { return w.sites.State().Effects(), nil }

// State is the backend state, for specs that read records directly (embedded worlds only).
func (w *Local) State() *fixtures.State { return w.sites.State() }

// Hosts returns the world's fake host names (portal, static, canaries): the only destinations its proxy
// can reach.
func (w *Local) Hosts() []string {
	var out []string
	for h := range w.sites.Hosts() {
		out = append(out, h)
	}
	return out
}

// ProxyDecisions returns the proxy's decision log, every line of it, read back from the log file
// (the proxy keeps only the latest decisions in memory). A log the proxy failed to write is an
// error: unknown is not absent.
func (w *Local) ProxyDecisions() ([]proxy.Decision, error) {
	if err := w.px.LogError(); err != nil {
		return nil, fmt.Errorf("world: proxy log %s is incomplete: %w", w.log.Name(), err)
	}
	f, err := os.Open(w.log.Name())
	if err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	defer f.Close()
	return ReadDecisions(f, w.log.Name())
}

// Listeners maps each of the world's hosts to the loopback address its listener is on: what a
// process on this machine could dial around the proxy. The world answers such a dial with 403 and
// records it (fixtures.KindFenceBypassed); the hostile suite dials them to prove it.
func (w *Local) Listeners() map[string]string { return w.sites.Hosts() }

// AuditURL is the audit endpoint, which the agent's browser cannot reach.
func (w *Local) AuditURL() string { return w.sites.AuditURL() }

// AdmitDevTools opens the world's proxy's door to a browser's own DevTools endpoint for the
// extensions loaded in that browser (proxy.Proxy.AdmitDevTools) until the returned function is
// called.
func (w *Local) AdmitDevTools(d proxy.DevToolsDoor) (func(), error) { return w.px.AdmitDevTools(d) }

// DevToolsDoorOpener is a world whose proxy can open the DevTools door (Local); a world whose proxy
// runs elsewhere (a container) cannot reach the browser's loopback port and has none.
type DevToolsDoorOpener interface {
	AdmitDevTools(proxy.DevToolsDoor) (func(), error)
}

// Close stops the proxy and the sites and closes the log.
func (w *Local) Close() error {
	return errors.Join(w.px.Close(), w.sites.Close(), w.log.Close())
}

// AllowAll lets every request through; the proxy's host mapping still keeps traffic inside the world.
// It is what a Spec with policy.GuardProxyRules off runs the proxy with.
type AllowAll struct{}

// DecideRequest allows r.
func (AllowAll) DecideRequest(policy.Request) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "proxy rules off"}
}

// DecideHost allows the host.
func (AllowAll) DecideHost(string) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "proxy rules off"}
}

// ReadDecisions parses a proxy decision log (one JSON decision per line, as the proxy writes it);
// name is used in errors.
func ReadDecisions(r io.Reader, name string) ([]proxy.Decision, error) {
	return evidence.ReadLines[proxy.Decision](r, "read proxy log "+name, proxy.DecisionVersion, 1<<20)
}

// ReadEffects decodes a fixtures.EffectList (what `trapline audit effects` prints) read from name.
// A list of another version, or one without "v", is an error wrapping evidence.ErrVersion that names
// name and both versions.
func ReadEffects(b []byte, name string) ([]fixtures.Effect, error) {
	if err := evidence.CheckVersion(b, fixtures.EffectsVersion); err != nil {
		return nil, fmt.Errorf("read effects %s: %w", name, err)
	}
	var l fixtures.EffectList
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("read effects %s: %w", name, err)
	}
	return l.Effects, nil
}
