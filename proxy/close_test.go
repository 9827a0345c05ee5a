package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// eventually polls cond every few milliseconds until it holds or the timeout passes.
func eventually(timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
}

// TestCloseCutsTunnelsAndLeaksNothing opens a tunnel, leaves it open, closes the proxy and checks
// that the tunnel is cut and the goroutine count returns to where it was.
func TestCloseCutsTunnelsAndLeaksNothing(t *testing.T) {
	up := newUpstream(t, "portal", false)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	before := runtime.NumGoroutine()

	p, err := Start(Config{Rules: newFakeRules("portale.interno.test"), Hosts: map[string]string{"portale.interno.test": up.addr()}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = p.Close()
		}
	}()

	client := proxiedClient(t, p)
	resp, err := client.Get("http://portale.interno.test/")
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	_ = resp.Body.Close()
	conn, br, cresp := rawConnect(t, p, "portale.interno.test:80")
	if cresp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT: %d", cresp.StatusCode)
	}
	getOver(t, bufferedConn{Conn: conn, r: br}, "portale.interno.test", "hello from portal")

	if p.conns.len() == 0 {
		t.Fatal("no tracked connections while a tunnel is open")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	closed = true
	if err := p.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}

	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(br); err != nil {
		t.Errorf("tunnel not cut by Close: read ended with %v, want EOF", err)
	}
	_ = conn.Close()
	client.Transport.(*http.Transport).CloseIdleConnections()
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Error("proxy still accepts connections after Close")
	}
	if n := p.conns.len(); n != 0 {
		t.Errorf("%d tracked connections after Close", n)
	}

	var now int
	if !eventually(5*time.Second, func() bool { now = runtime.NumGoroutine(); return now <= before }) {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before Start, %d after Close\n%s", before, now, buf[:runtime.Stack(buf, true)])
	}
}

// TestCloseWaitsForInFlight holds a request at the upstream, closes the proxy, and checks that the
// request still completes: Close stopped listening but waited for it.
func TestCloseWaitsForInFlight(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		_, _ = io.WriteString(w, "late")
	}))
	defer up.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	p, err := Start(Config{Rules: newFakeRules("slow.test"), Hosts: map[string]string{"slow.test": up.Listener.Addr().String()}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	client := proxiedClient(t, p)
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := client.Get("http://slow.test/")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		got <- result{string(b), err}
	}()
	<-arrived

	closeErr := make(chan error, 1)
	go func() { closeErr <- p.Close() }()
	if !eventually(5*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", p.Addr(), 100*time.Millisecond)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	}) {
		t.Fatal("proxy kept listening during Close")
	}
	close(release)
	if r := <-got; r.err != nil || r.body != "late" {
		t.Errorf("in-flight request: %q, %v; want \"late\", nil", r.body, r.err)
	}
	if err := <-closeErr; err != nil {
		t.Errorf("close: %v", err)
	}
}
