package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
)

// Hash returns the hex SHA-256 of the page URL and the node list, leaving
// refs out: the snapshot id, and also Playwright's own ref numbers and frame
// prefixes, which change when an element is re-rendered or the page is
// reloaded without its content changing. Whether a node has a ref is kept.
// Two observations with the same Hash show the same page content; a changed
// name, text, URL, state or structure changes it.
func (o *Observation) Hash() string {
	h := sha256.New()
	field := func(s string) {
		var n [10]byte
		h.Write(strconv.AppendInt(n[:0], int64(len(s)), 10))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field("observe-hash-v1")
	field(o.URL)
	for i := range o.Nodes {
		n := &o.Nodes[i]
		field(strconv.Itoa(n.Depth))
		field(n.Role)
		field(n.Name)
		field(n.Text)
		field(n.RawURL)
		field(n.Placeholder)
		if n.RawRef != "" {
			field("ref")
		} else {
			field("")
		}
		writeMap(field, n.States)
		writeMap(field, n.Props)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeMap hashes a map in sorted key order, prefixed by its size.
func writeMap(field func(string), m map[string]string) {
	field(strconv.Itoa(len(m)))
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k)
		field(m[k])
	}
}
