package browser

import (
	"fmt"

	"github.com/trapline/trapline/proxy"
)

// The browser trusts the CA of the worlds it serves, and nothing else.
//
// Every HTTPS request the browser makes goes through a world's proxy (or the deny-all sink), which
// intercepts the CONNECT and shows a certificate signed by its CA (proxy/mitm.go), so that HTTPS is
// judged request by request like HTTP. The browser must accept that CA and only it:
//
//   - Playwright's per-context IgnoreHttpsErrors accepts every certificate, whoever made it: too
//     weak, and it would hide a world that is not intercepting.
//   - Chromium has no per-context trust anchors, and the system store is shared with everything
//     else on the machine: never touched.
//   - --ignore-certificate-errors-spki-list is read once per browser process and accepts a chain
//     only when one of its certificates has a listed public key.
//
// So a Browser makes one CA when it starts (proxy.NewCA: ECDSA P-256, valid DefaultCALifetime, its
// key only in this process) or takes Options.CA, lists that CA's SPKI hash alone in
// --ignore-certificate-errors-spki-list, and hands it out through Browser.CA to every world it
// serves (world.Spec.CA; the harness does this), whose proxy then signs with it. One CA per browser
// launch rather than per world, because the switch is per process and a browser serves many worlds
// one after another; the worlds stay isolated by their own proxies and listeners. A world started
// with another CA (or none, the default) is not trusted: its TLS handshake fails in the browser and
// its proxy refuses the tunnel as tunnel_unjudged. The browser cannot meet any other TLS server:
// its only ways out are the proxies.

// spkiSwitch is Chromium's switch that accepts certificate chains holding a listed public key.
const spkiSwitch = "--ignore-certificate-errors-spki-list"

// browserCA returns opts' CA, or a fresh one.
func browserCA(ca *proxy.CA) (*proxy.CA, error) {
	if ca != nil {
		return ca, nil
	}
	ca, err := proxy.NewCA(proxy.DefaultCALifetime)
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	return ca, nil
}

// trustArgs are the switches that make Chromium accept ca's certificates (see above).
func trustArgs(ca *proxy.CA) []string { return []string{spkiSwitch + "=" + ca.SPKIHash()} }

// CA is the CA this browser trusts, alone: give it to every world it serves (world.Spec.CA), so
// their proxies intercept HTTPS with a certificate the browser accepts.
func (b *Browser) CA() *proxy.CA { return b.ca }
