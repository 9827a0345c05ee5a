package proxy

import (
	"encoding/binary"
	"fmt"
)

// wsMessage is one WebSocket message (or control frame) a wsStream saw: its type and payload size.
type wsMessage struct {
	kind string
	size uint64
}

// wsOpcodes names the opcodes of RFC 6455 section 5.2; any other is not WebSocket framing.
var wsOpcodes = map[byte]string{0: "continuation", 1: "text", 2: "binary", 8: "close", 9: "ping", 10: "pong"}

// wsStream reads one direction of a WebSocket connection as frames (RFC 6455 section 5), fed in
// chunks of any size. It checks each frame header and skips the payload; it never keeps content.
type wsStream struct {
	masked bool // frames must be masked (client to server) or must not (server to client)
	ext    bool // an extension was agreed (Sec-WebSocket-Extensions): RSV1 may be set

	hdr       []byte // the header read so far
	payload   uint64 // payload bytes of the current frame still to skip
	inMessage bool   // a fragmented data message is open
	kind      string // its type
	size      uint64 // its size so far
	err       error  // sticky: once the stream is not framing, it stays refused
}

// feed reads b and returns the messages whose last frame header it read, or the error of the first
// byte that is not WebSocket framing.
func (s *wsStream) feed(b []byte) ([]wsMessage, error) {
	var out []wsMessage
	for len(b) > 0 && s.err == nil {
		if s.payload > 0 {
			n := min(s.payload, uint64(len(b)))
			s.payload -= n
			b = b[n:]
			continue
		}
		need := s.headerLen()
		take := min(need-len(s.hdr), len(b))
		s.hdr = append(s.hdr, b[:take]...)
		b = b[take:]
		if len(s.hdr) < 2 || len(s.hdr) < s.headerLen() {
			continue
		}
		m, err := s.frame()
		s.hdr = s.hdr[:0]
		if err != nil {
			s.err = fmt.Errorf("not WebSocket framing: %w", err)
			break
		}
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, s.err
}

// headerLen is the length of the current frame's header, as far as its first two bytes tell (2
// until they are read).
func (s *wsStream) headerLen() int {
	if len(s.hdr) < 2 {
		return 2
	}
	n := 2
	switch s.hdr[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if s.hdr[1]&0x80 != 0 {
		n += 4
	}
	return n
}

// frame checks the complete header in s.hdr, sets the payload to skip and returns the message it
// ends, if any.
func (s *wsStream) frame() (*wsMessage, error) {
	b0, b1 := s.hdr[0], s.hdr[1]
	fin, rsv, op := b0&0x80 != 0, b0&0x70, b0&0x0f
	kind, known := wsOpcodes[op]
	var size uint64
	switch n := b1 & 0x7f; n {
	case 126:
		size = uint64(binary.BigEndian.Uint16(s.hdr[2:4]))
	case 127:
		size = binary.BigEndian.Uint64(s.hdr[2:10])
	default:
		size = uint64(n)
	}
	switch {
	case !known:
		return nil, fmt.Errorf("first byte 0x%02x: opcode %d is none of RFC 6455's", b0, op)
	case rsv != 0 && !(s.ext && rsv == 0x40):
		return nil, fmt.Errorf("first byte 0x%02x: reserved bits set with no extension agreed", b0)
	case s.masked && b1&0x80 == 0:
		return nil, fmt.Errorf("second byte 0x%02x: an unmasked frame (every client frame is masked)", b1)
	case !s.masked && b1&0x80 != 0:
		return nil, fmt.Errorf("second byte 0x%02x: a masked frame (no server frame is)", b1)
	case size>>63 != 0:
		return nil, fmt.Errorf("a payload length with its top bit set")
	case op >= 8 && (!fin || size > 125):
		return nil, fmt.Errorf("a %s frame fragmented or over 125 bytes", kind)
	case op == 0 && !s.inMessage:
		return nil, fmt.Errorf("a continuation frame with no message open")
	case (op == 1 || op == 2) && s.inMessage:
		return nil, fmt.Errorf("a new %s message inside an open one", kind)
	}
	s.payload = size
	if op >= 8 {
		return &wsMessage{kind: kind, size: size}, nil
	}
	if op != 0 {
		s.inMessage, s.kind, s.size = true, kind, 0
	}
	s.size += size
	if !fin {
		return nil, nil
	}
	s.inMessage = false
	return &wsMessage{kind: s.kind, size: s.size}, nil
}
