package evidence

import (
	"errors"
	"io"
)

// Redacted replaces every secret in evidence.
const Redacted = "[REDACTED]"

// Redactor replaces configured secrets, in every form an artifact can hold them (plain; URL-, JSON-
// and HTML-escaped, in any mixture; base64 and base64url at each alignment; UTF-16 in both byte
// orders: the Form constants), in strings, byte slices and streams. The zero value and nil redact
// nothing.
type Redactor struct {
	m *matcher
}

// NewRedactor returns a Redactor for the given secrets; empty strings are ignored. Longer secrets are
// replaced first, so a secret that contains another is hidden whole.
func NewRedactor(secrets ...string) *Redactor {
	return &Redactor{m: newMatcher(secrets)}
}

// active reports whether r has a secret to replace.
func (r *Redactor) active() bool { return r != nil && r.m != nil }

// String returns s with every form of every secret replaced by Redacted (its UTF-16 forms by
// Redacted in UTF-16).
func (r *Redactor) String(s string) string {
	if !r.active() {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

// Bytes is String for byte slices. b itself is returned when it holds no secret.
func (r *Redactor) Bytes(b []byte) []byte {
	if !r.active() {
		return b
	}
	spans := r.m.find(b)
	if len(spans) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	pos := 0
	for _, s := range spans {
		out = append(append(out, b[pos:s.start]...), s.repl...)
		pos = s.end
	}
	return append(out, b[pos:]...)
}

// Copy writes src to dst with every secret replaced, holding at most about a megabyte of it in memory
// (a match can span two reads). It returns the forms it replaced, one per replacement.
func (r *Redactor) Copy(dst io.Writer, src io.Reader) ([]string, error) {
	if !r.active() {
		_, err := io.Copy(dst, src)
		return nil, err
	}
	return r.m.stream(dst, src)
}

// chunkSize is how much of a stream is read at a time.
const chunkSize = 1 << 20

// stream copies src to dst with every match replaced and returns the matches' forms. The window
// keeps maxLen-1 bytes past what it has passed on, so a match that starts in what is passed on is
// whole in the window.
func (m *matcher) stream(dst io.Writer, src io.Reader) ([]string, error) {
	var forms []string
	buf := make([]byte, 0, chunkSize+m.maxLen)
	for eof := false; !eof; {
		n, err := io.ReadFull(src, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			eof = true
		case err != nil:
			return forms, err
		}
		safe := len(buf)
		if !eof {
			safe -= m.maxLen - 1
		}
		pos := 0
		for _, s := range m.find(buf) {
			if s.start >= safe {
				break
			}
			if _, err := dst.Write(buf[pos:s.start]); err != nil {
				return forms, err
			}
			if _, err := dst.Write(s.repl); err != nil {
				return forms, err
			}
			form := s.form
			if form == "" {
				form = m.textForm(buf[s.start:s.end])
			}
			forms = append(forms, form)
			pos = s.end
		}
		end := max(pos, safe)
		if _, err := dst.Write(buf[pos:end]); err != nil {
			return forms, err
		}
		buf = buf[:copy(buf, buf[end:])]
	}
	return forms, nil
}
