// Package jsonl holds the one bound on what a single JSON Lines record of trapline may hold, for
// every log an outside party can fill (the proxy's decisions, the run's actions, violations and
// console messages, an agent tool's calls, a served model's calls, and the fields of an effect). A
// page can make a request with a URL of megabytes, a tool can answer a snapshot of megabytes: cut
// at the writer, such a record still fits the line readers (evidence.ReadLines) and says what was
// cut, instead of breaking the run that reads it back.
//
// It is shared machinery of public packages (proxy, agentkit/evidence, fixtures), like
// internal/userfile: not API of its own.
//
//	line, _ := json.Marshal(decision)
//	line = jsonl.Bound(line) // at most MaxLine bytes; a long string ends "…[cut 1234567 bytes]"
package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxLine is the most bytes one record's line may hold (without its newline). Every reader of a
// trapline log reads lines of at least this length.
const MaxLine = 512 << 10

// MaxField is the most bytes one string field keeps once its record or its value is cut (the
// marker added).
const MaxField = 16 << 10

// minField is the smallest field bound Bound tries before giving up on strings alone.
const minField = 256

// Marker is what ends a cut string: how many bytes of it were left out.
func Marker(cut int) string { return fmt.Sprintf("…[cut %d bytes]", cut) }

// Cut returns s unchanged when it holds at most max bytes, else its first bytes (whole UTF-8
// characters) followed by Marker, max bytes in all at most (a max below the marker's length keeps
// only the marker).
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	keep := max - len(Marker(len(s)))
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + Marker(len(s)-keep)
}

// Field cuts one string field to MaxField bytes: what a writer that does not write whole JSON lines
// (an effect's detail) applies to each field an outside party fills.
func Field(s string) string { return Cut(s, MaxField) }

// Bound returns line (one JSON value, no newline) unchanged when it holds at most MaxLine bytes.
// Otherwise it returns the same value, keys and order kept, with every string longer than a field
// bound cut with Marker: MaxField first, smaller bounds until the line fits. A line that still does
// not fit (or is not valid JSON) becomes a record of its short top-level members only, plus
// "cut": Marker: readers of a versioned log still find its "v".
func Bound(line []byte) []byte {
	if len(line) <= MaxLine {
		return line
	}
	for field := MaxField; field >= minField; field /= 4 {
		out, err := cutStrings(line, field)
		if err != nil {
			break
		}
		if len(out) <= MaxLine {
			return out
		}
	}
	return topLevel(line)
}

// cutStrings re-encodes the JSON value line with every string (key or value) over field bytes cut.
func cutStrings(line []byte, field int) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var out bytes.Buffer
	// Each open container: true for an object (whose members alternate key, value).
	var stack []bool
	var count []int // members (keys and values) written in each open container
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack, count = stack[:len(stack)-1], count[:len(count)-1]
			continue
		}
		if n := len(stack); n > 0 {
			switch {
			case stack[n-1] && count[n-1]%2 == 1:
				out.WriteByte(':')
			case count[n-1] > 0:
				out.WriteByte(',')
			}
			count[n-1]++
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack, count = append(stack, v == '{'), append(count, 0)
		case string:
			writeString(&out, Cut(v, field))
		case json.Number:
			out.WriteString(v.String())
		case nil:
			out.WriteString("null")
		default: // bool
			fmt.Fprint(&out, v)
		}
	}
	return out.Bytes(), nil
}

func writeString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	out.Truncate(out.Len() - 1) // Encode's newline
}

// topLevel keeps the members of a top-level object whose encoding is short, and says how much was cut.
func topLevel(line []byte) []byte {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return []byte(fmt.Sprintf(`{"cut":%q}`, Marker(len(line))))
	}
	kept := map[string]json.RawMessage{}
	for k, v := range members {
		if len(k)+len(v) <= minField {
			kept[k] = v
		}
	}
	kept["cut"], _ = json.Marshal(Marker(len(line)))
	out, _ := json.Marshal(kept) // raw members that came from a valid object re-encode
	return out
}
