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
		tc = &trackedTCPConn{TCPConn: tcp, set: s}
	} else {
		tc = &trackedConn{Conn: c, set: s}
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

type trackedTCPConn struct {
	*net.TCPConn
	set   *connSet
	once  sync.Once
	watch *connWatch // client connections only
}

func (c *trackedTCPConn) Write(b []byte) (int, error) {
	if c.watch != nil {
		c.watch.wrote(b)
	}
	return c.TCPConn.Write(b)
}

func (c *trackedTCPConn) Close() error {
	c.once.Do(func() { c.set.remove(c) })
	return c.TCPConn.Close()
}

type trackedConn struct {
	net.Conn
	set   *connSet
	once  sync.Once
	watch *connWatch // client connections only
}

func (c *trackedConn) Write(b []byte) (int, error) {
	if c.watch != nil {
		c.watch.wrote(b)
	}
	return c.Conn.Write(b)
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.set.remove(c) })
	return c.Conn.Close()
}

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
	switch x := tc.(type) {
	case *trackedTCPConn:
		x.watch = &connWatch{}
	case *trackedConn:
		x.watch = &connWatch{}
	}
	return tc, nil
}
