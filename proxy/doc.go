// Package proxy is trapline's egress proxy: the staging world's only way out.
//
// A Proxy is an HTTP proxy built on goproxy. It rules on every request against a Rules value
// (normally a *policy.Policy) and dials nothing but the literal addresses of its host map, so the
// fake names of the staging world ("portale.interno.test", "evil.example.test") reach in-process
// servers and nothing reaches the real network: it never resolves a name and ignores
// HTTP_PROXY/HTTPS_PROXY.
//
//   - A plain HTTP request (absolute-form, "GET http://host/path") goes to Rules.DecideRequest, then
//     to the host map. A denial is answered 403 with the body
//     "trapline proxy: denied by rule <rule>: <reason>" and the X-Trapline-Rule header.
//   - A CONNECT tunnel (HTTPS, and ws:// from Chromium) goes to Rules.DecideHost, then to the host
//     map. A denial is answered 403; Chromium shows it as net::ERR_TUNNEL_CONNECTION_FAILED. An
//     allowed tunnel is intercepted, never passed through blind: the proxy terminates TLS with a
//     certificate signed by its CA (Config.CA, Proxy.CA) and judges every request inside it like a
//     plain one. A tunnel it cannot judge (the client does not trust the CA, or speaks neither TLS
//     nor HTTP) is refused with rule tunnel_unjudged (mitm.go).
//   - A request addressed to the proxy itself is answered 400 (rule not_a_proxy_request).
//   - An upstream response is judged by its headers (ResponseRules). Headers named X-Trapline-*
//     belong to the proxy: they are stripped from every upstream response (trailers included), and
//     a response that carried one is cut and refused (rule forged_internal_header). The proxy knows
//     its own 403s out of band, never by a header.
//
// The proxy listens on loopback only (Config.Listen); any other address, every interface included,
// needs Config.AllowNonLoopback, as a container's proxy does.
//
// Every decision is written, if Config.Log is set, to it as one versioned JSON line (Decision,
// v=1), which specs read as evidence from outside the agent; only the latest Config.KeepDecisions
// stay in memory (Proxy.Decisions), so a long-running proxy's memory does not grow with its
// traffic. A request body that does not arrive within Config.BodyTimeout is refused
// (body_unreadable), and a request Go's HTTP server refuses by itself before any handler sees it
// (malformed, bad Host, headers over 1 MiB) still gets a line (malformed_request).
//
// Example:
//
//	px, err := proxy.Start(proxy.Config{
//		Rules: pol, // *policy.Policy; nil denies everything
//		Hosts: map[string]string{"portale.interno.test": portal.Listener.Addr().String()},
//		Log:   logFile,
//	})
//	if err != nil {
//		return err
//	}
//	defer px.Close()
//	browser, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
//		Args:  proxy.ChromiumArgs(),
//		Proxy: &playwright.Proxy{Server: px.URL()},
//	})
package proxy
