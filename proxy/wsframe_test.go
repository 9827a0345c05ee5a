package proxy

import (
	"strings"
	"testing"
)

func TestWSStreamReadsFramesOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		masked  bool
		ext     bool
		in      string
		msgs    int
		wantErr string
	}{
		{"a masked text frame", true, false, "\x81\x85\x00\x00\x00\x00hello", 1, ""},
		{"a fragmented message", true, false, "\x01\x81\x00\x00\x00\x00a\x80\x81\x00\x00\x00\x00b", 1, ""},
		{"a ping between fragments", true, false, "\x01\x81\x00\x00\x00\x00a\x89\x80\x00\x00\x00\x00\x80\x81\x00\x00\x00\x00b", 2, ""},
		{"a 16-bit length", false, false, "\x82\x7e\x00\x80" + strings.Repeat("x", 128), 1, ""},
		{"deflate with an extension", true, true, "\xc1\x81\x00\x00\x00\x00x", 1, ""},
		{"plain HTTP", true, false, "POST /pratiche/4/elimina HTTP/1.1\r\n", 0, "reserved bits"},
		{"GET", true, false, "GET / HTTP/1.1\r\n", 0, "opcode 7"},
		{"an unmasked client frame", true, false, "\x81\x02ok", 0, "unmasked"},
		{"a masked server frame", false, false, "\x81\x82\x00\x00\x00\x00ok", 0, "masked frame"},
		{"deflate without an extension", true, false, "\xc1\x81\x00\x00\x00\x00x", 0, "reserved bits"},
		{"a long ping", false, false, "\x89\x7e\x00\x80", 0, "over 125"},
		{"a continuation alone", false, false, "\x80\x00", 0, "no message open"},
		{"a text inside a text", false, false, "\x01\x00\x01\x00", 0, "inside an open one"},
		{"a 64-bit length with its top bit", false, false, "\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 0, "top bit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunk := range []int{1, 3, len(tc.in)} {
				s := wsStream{masked: tc.masked, ext: tc.ext}
				var n int
				var err error
				for b := []byte(tc.in); len(b) > 0 && err == nil; {
					c := min(chunk, len(b))
					var msgs []wsMessage
					msgs, err = s.feed(b[:c])
					n += len(msgs)
					b = b[c:]
				}
				if n != tc.msgs || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
					t.Errorf("chunks of %d: %d messages, err %v; want %d, %q", chunk, n, err, tc.msgs, tc.wantErr)
				}
			}
		})
	}
}

// FuzzWSStream: a stream read in chunks of any size says what it says read whole.
func FuzzWSStream(f *testing.F) {
	f.Add([]byte("\x81\x85\x00\x00\x00\x00hello"), true, uint8(3))
	f.Add([]byte("POST / HTTP/1.1\r\n"), false, uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, masked bool, chunk uint8) {
		whole := wsStream{masked: masked}
		wm, werr := whole.feed(in)
		s := wsStream{masked: masked}
		c := int(chunk%16) + 1
		var n int
		var err error
		for b := in; len(b) > 0 && err == nil; b = b[min(c, len(b)):] {
			var msgs []wsMessage
			msgs, err = s.feed(b[:min(c, len(b))])
			n += len(msgs)
		}
		if n != len(wm) || (err == nil) != (werr == nil) {
			t.Fatalf("chunks of %d: %d messages, %v; whole: %d, %v", c, n, err, len(wm), werr)
		}
	})
}
