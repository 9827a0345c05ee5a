package observe

import (
	"crypto/rand"
	"strings"
)

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// snapshotIDLen is the length of ids made by NewSnapshotID.
const snapshotIDLen = 6

// NewSnapshotID returns a fresh snapshot id: 6 lowercase letters and digits
// drawn from crypto/rand (about 31 bits), e.g. "k7q2m9".
func NewSnapshotID() string {
	var out [snapshotIDLen]byte
	var buf [16]byte
	n := 0
	for n < len(out) {
		_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails since Go 1.24
		for _, c := range buf {
			// 252 = 7*36: reject the top values so every symbol is equally likely.
			if c >= 252 {
				continue
			}
			out[n] = idAlphabet[int(c)%len(idAlphabet)]
			n++
			if n == len(out) {
				break
			}
		}
	}
	return string(out[:])
}

// validSnapshotID reports whether id can qualify refs: 1 to 64 ASCII letters,
// digits, '-' or '_'. NewSnapshotID always returns a valid id.
func validSnapshotID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// qualify joins a snapshot id and a Playwright ref into "id:ref".
func qualify(snapshotID, ref string) string { return snapshotID + ":" + ref }

// SplitRef splits a qualified ref "k7q2m9:e8" into its snapshot id and its
// Playwright ref. A ref without snapshot id ("e8") fails with ErrBareRef;
// anything else that is not "id:ref" fails with ErrMalformedRef.
func SplitRef(qref string) (snapshotID, ref string, err error) {
	id, raw, ok := strings.Cut(qref, ":")
	switch {
	case qref == "":
		return "", "", newError(ErrMalformedRef, qref, "empty ref")
	case !ok:
		if validRawRef(qref) {
			return "", "", newError(ErrBareRef, qref, "ref has no snapshot id; use the qualified ref from the observation")
		}
		return "", "", newError(ErrMalformedRef, qref, `want "snapshotid:ref"`)
	case !validSnapshotID(id) || !validRawRef(raw):
		return "", "", newError(ErrMalformedRef, qref, `want "snapshotid:ref"`)
	}
	return id, raw, nil
}

// validRawRef reports whether s looks like a ref Playwright prints: ASCII
// letters and digits only ("e8", "f1e2"). The exact grammar is Playwright's
// business, so this only rules out separators and spaces.
func validRawRef(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// frameOf returns the frame prefix of a Playwright ref: "f1" for "f1e2", ""
// for "e8". Refs of another shape have no frame.
func frameOf(ref string) string {
	if len(ref) < 2 || ref[0] != 'f' {
		return ""
	}
	i := 1
	for i < len(ref) && ref[i] >= '0' && ref[i] <= '9' {
		i++
	}
	if i == 1 || i >= len(ref) || ref[i] != 'e' {
		return ""
	}
	return ref[:i]
}
