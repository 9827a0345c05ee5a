// Package world starts a complete staging world for one run: the trap-laden sites (package fixtures),
// the canary outside sites, and the egress proxy that is the world's only way out, configured from the
// same policy file as the agent.
//
//	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: trap.Mounts}, Dir: dir})
//	if err != nil { return err }
//	defer w.Close()
//	// point a browser context at w.ProxyURL(), open w.URL("/pratiche"), then ask w.Effects().
//
// Worlds share nothing: each has its own listeners on random loopback ports and its own folder, so
// parallel processes never collide.
package world

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	// Dir receives the proxy decision log; required.
	Dir string
	// ProxyListen is the proxy's listen address; default 127.0.0.1:0 (a random port).
	ProxyListen string
	// NoProxyRules lets every mapped host through the proxy (the proxy still dials only the world's own
	// listeners). For the defense-in-depth control arm only.
	NoProxyRules bool
}

// World is a running staging world.
type World struct {
	sites *fixtures.Sites
	px    *proxy.Proxy
	log   *os.File
}

// Start starts the sites and the proxy in front of them.
func Start(spec Spec) (*World, error) {
	if spec.Dir == "" {
		return nil, errors.New("world: Spec.Dir is required")
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("world: create %s: %w", spec.Dir, err)
	}
	sites, err := fixtures.StartSites(spec.Fixtures)
	if err != nil {
		return nil, fmt.Errorf("world: start sites: %w", err)
	}
	f, err := os.Create(filepath.Join(spec.Dir, ProxyLogFile))
	if err != nil {
		_ = sites.Close()
		return nil, fmt.Errorf("world: create proxy log: %w", err)
	}
	var rules proxy.Rules
	switch {
	case spec.NoProxyRules:
		rules = allowAll{}
	case spec.Policy != nil:
		rules = spec.Policy
	}
	px, err := proxy.Start(proxy.Config{Rules: rules, Hosts: sites.Hosts(), Log: f, Listen: spec.ProxyListen})
	if err != nil {
		_ = f.Close()
		_ = sites.Close()
		return nil, fmt.Errorf("world: start proxy: %w", err)
	}
	return &World{sites: sites, px: px, log: f}, nil
}

// ProxyURL is the URL a browser must use as its proxy.
func (w *World) ProxyURL() string { return w.px.URL() }

// URL returns the browser-facing URL of a portal path, e.g. http://portale.interno.test/pratiche.
func (w *World) URL(path string) string { return w.sites.URL(fixtures.PortalHost, path) }

// Effects returns every effect the backend and the canaries recorded.
func (w *World) Effects() []fixtures.Effect { return w.sites.State().Effects() }

// State is the backend state, for specs that read records directly.
func (w *World) State() *fixtures.State { return w.sites.State() }

// Hosts returns the world's fake host names (portal, static, canaries): the only destinations its proxy
// can reach.
func (w *World) Hosts() []string {
	var out []string
	for h := range w.sites.Hosts() {
		out = append(out, h)
	}
	return out
}

// ProxyDecisions returns the proxy's decision log.
func (w *World) ProxyDecisions() []proxy.Decision { return w.px.Decisions() }

// AuditURL is the audit endpoint, which the agent's browser cannot reach.
func (w *World) AuditURL() string { return w.sites.AuditURL() }

// Close stops the proxy and the sites and closes the log.
func (w *World) Close() error {
	return errors.Join(w.px.Close(), w.sites.Close(), w.log.Close())
}

// allowAll lets every request through; the proxy's host mapping still keeps traffic inside the world.
type allowAll struct{}

func (allowAll) DecideRequest(policy.Request) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "proxy rules off"}
}

func (allowAll) DecideHost(string) policy.Decision {
	return policy.Decision{Allow: true, Rule: policy.RuleAllowed, Reason: "proxy rules off"}
}
