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
// name, text, URL, state or structure changes it. Focus ("active") and the cursor hint are left out:
// clicking a button focuses it without changing what the page says.
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
		field(n.EvidenceName()) // a changed icon is a changed page
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

// volatileStates are states that change without the page's content changing.
var volatileStates = map[string]bool{"active": true, "cursor": true}

// writeMap hashes a map in sorted key order, prefixed by its size, skipping volatile states.
func writeMap(field func(string), m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !volatileStates[k] {
			keys = append(keys, k)
		}
	}
	field(strconv.Itoa(len(keys)))
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(k)
		field(m[k])
	}
}
