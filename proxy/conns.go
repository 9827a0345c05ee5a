package proxy

import (
	"net"
	"sync"
)

// connSet tracks open connections, client side and upstream side, so Close can cut tunnels and
// WebSockets: http.Server.Shutdown does not wait for or close hijacked connections.
type connSet struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func newConnSet() *connSet { return &connSet{conns: make(map[net.Conn]struct{})} }

// track wraps c so that closing it removes it from the set. A connection tracked after closeAll is
// closed at once.
func (s *connSet) track(c net.Conn) net.Conn {
	var tc net.Conn
	if tcp, ok := c.(*net.TCPConn); ok {
		// Keep *net.TCPConn's methods (CloseRead/CloseWrite, ReadFrom): goproxy half-closes tunnels.
		tc = &trackedTCPConn{TCPConn: tcp, tracking: tracking{set: s}}
	} else {
		tc = &trackedConn{Conn: c, tracking: tracking{set: s}}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return tc
	}
	s.conns[tc] = struct{}{}
	s.mu.Unlock()
	return tc
}

func (s *connSet) remove(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// closeAll closes every tracked connection and makes later track calls close theirs.
func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	open := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		open = append(open, c)
	}
	s.mu.Unlock()
	for _, c := range open {
		_ = c.Close()
	}
}

// len reports how many tracked connections are open.
func (s *connSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// tracking is what a tracked connection adds to the one it wraps: its set and, for a client
// connection, its watch. trackedTCPConn and trackedConn differ only in what they wrap.
type tracking struct {
	set   *connSet
	once  sync.Once
	watch *connWatch // client connections only
}

func (t *tracking) tracked() *tracking { return t }

// wrote feeds the watch, if any, what was written.
func (t *tracking) wrote(b []byte) {
	if t.watch != nil {
		t.watch.wrote(b)
	}
}

// closed takes c out of the set, once.
func (t *tracking) closed(c net.Conn) { t.once.Do(func() { t.set.remove(c) }) }

// trackingOf returns the tracking of a connection track wrapped, or nil.
func trackingOf(c net.Conn) *tracking {
	if t, ok := c.(interface{ tracked() *tracking }); ok {
		return t.tracked()
	}
	return nil
}

type trackedTCPConn struct {
	*net.TCPConn
	tracking
}

func (c *trackedTCPConn) Write(b []byte) (int, error) { c.wrote(b); return c.TCPConn.Write(b) }
func (c *trackedTCPConn) Close() error                { c.closed(c); return c.TCPConn.Close() }

type trackedConn struct {
	net.Conn
	tracking
}

func (c *trackedConn) Write(b []byte) (int, error) { c.wrote(b); return c.Conn.Write(b) }
func (c *trackedConn) Close() error                { c.closed(c); return c.Conn.Close() }

// trackingListener tracks every accepted connection in set and gives each a connWatch.
type trackingListener struct {
	net.Listener
	set *connSet
}

func (l trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := l.set.track(c)
	trackingOf(tc).watch = &connWatch{}
	return tc, nil
}
