package proxy

import (
	"io"
	"net"
	"testing"
	"time"
)

// FuzzTunnelContent writes arbitrary bytes inside an allowed CONNECT tunnel (plain, as to :80 or
// :443) and checks the fence's claim there: the backend never receives a write the rules refuse
// (every POST is refused), and every request it does receive was judged and allowed first. Seeds
// include pipelined and smuggling shapes (Content-Length with Transfer-Encoding, a second request
// after the first's body). Run: go test -run XXX -fuzz FuzzTunnelContent -fuzztime 10m ./proxy
func FuzzTunnelContent(f *testing.F) {
	for _, s := range []string{
		"POST /pratiche/1/elimina HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Length: 1\r\n\r\nx",
		"GET /pratiche HTTP/1.1\r\nHost: portale.interno.test\r\n\r\nPOST /pratiche/1/elimina HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Length: 0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: portale.interno.test\r\nContent-Length: 60\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nPOST /pratiche/1/elimina HTTP/1.1\r\nHost: portale.interno.test\r\n\r\n",
		"GET http://evil.example.test/ HTTP/1.1\r\nHost: evil.example.test\r\n\r\n",
		"\x16\x03\x01\x00\x05hello",
		"\x00garbage",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	portal := newUpstream(f, "portal", false)
	rules := newFakeRules("portale.interno.test")
	rules.denyMethods["POST"] = true
	p := startProxy(f, Config{Rules: rules, Hosts: map[string]string{"portale.interno.test": portal.addr()}})
	f.Fuzz(func(t *testing.T, content string, to443 bool) {
		target := "portale.interno.test:80"
		if to443 {
			target = "portale.interno.test:443"
		}
		decided, hit := len(p.Decisions()), len(portal.received()) // this input's own, below
		conn, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
		if _, err := io.WriteString(conn, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n"+content); err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, conn) // until the proxy closes or the deadline
		allowed := map[string]bool{}
		for _, d := range p.Decisions()[decided:] {
			if d.Allowed() && d.Method != "CONNECT" {
				allowed[d.Method+" "+d.Path] = true
			}
		}
		for _, h := range portal.received()[hit:] {
			if h.Method == "POST" || !allowed[h.Method+" "+h.Path] {
				t.Fatalf("the backend received %s %s, which no allowed decision names (content %q)", h.Method, h.Path, content)
			}
		}
	})
}
