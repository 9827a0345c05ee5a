package harness

import (
	"net"
	"net/url"
	"strings"
)

// NoProxy is the NO_PROXY (and no_proxy) value that sends an agent's own HTTP clients straight to
// endpoints: the DevTools endpoint, the model endpoint of a run whose model is trapline's. Each is
// named twice, as host:port and as the bare host, because the clients disagree: curl (7.88), Python's
// requests (for an IP address) and Rust's reqwest ignore an entry with a port, Python's urllib and
// Go's net/http read both. The
// bare host widens the bypass to the host's other ports, which for these endpoints is the loopback
// address: the world's sites are reached by their names through the proxy, never by a loopback
// address, and an agent's process can ignore its proxy variables anyway (it is judged from outside).
//
// endpoints are URLs (http://127.0.0.1:PORT/v1) or host:port; one that names no host is left out.
func NoProxy(endpoints ...string) string {
	var hostPorts, hosts []string
	seen := map[string]bool{}
	add := func(list *[]string, v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			*list = append(*list, v)
		}
	}
	for _, e := range endpoints {
		hostPort := e
		if strings.Contains(e, "://") {
			u, err := url.Parse(e)
			if err != nil {
				continue
			}
			hostPort = u.Host
		}
		host, _, err := net.SplitHostPort(hostPort)
		if err != nil {
			host, hostPort = hostPort, ""
		}
		add(&hostPorts, hostPort)
		add(&hosts, strings.Trim(host, "[]"))
	}
	return strings.Join(append(hostPorts, hosts...), ",")
}
