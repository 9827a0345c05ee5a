package observe

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Parse reads raw, the text of page.AriaSnapshot in AI mode taken at
// pageURL, and qualifies its refs with snapshotID (see NewSnapshotID).
//
// Parse fails only when snapshotID is unusable (ErrBadSnapshotID) or when
// raw is not an aria snapshot at all (ErrNotSnapshot: its first non-blank
// line is not a top-level "- role ..." item). An empty raw is the snapshot
// of an empty page: no nodes, complete. A line Parse cannot read further on
// is skipped, recorded in Warnings and makes the observation incomplete;
// nothing is dropped silently.
func Parse(snapshotID, pageURL, raw string) (*Observation, error) {
	if !validSnapshotID(snapshotID) {
		return nil, newError(ErrBadSnapshotID, snapshotID, "snapshot id must be 1-64 ASCII letters, digits, '-' or '_'")
	}
	lines := strings.Count(raw, "\n") + 1 // an upper bound on the node count
	p := &parser{o: &Observation{
		SnapshotID: snapshotID,
		URL:        pageURL,
		Complete:   true,
		Raw:        raw,
		Nodes:      make([]Node, 0, lines),
		byRef:      make(map[string]int, lines),
	}}
	if pageURL != "" {
		if u, err := url.Parse(pageURL); err == nil && u.IsAbs() {
			p.base = u
		} else {
			p.o.Warnings = append(p.o.Warnings, fmt.Sprintf("page URL %q is not absolute: link URLs are left as printed", pageURL))
		}
	}
	lineNo := 0
	for line := range strings.Lines(raw) {
		lineNo++
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		err := p.line(lineNo, line)
		if err == nil {
			continue
		}
		if len(p.o.Nodes) == 0 {
			return nil, newError(ErrNotSnapshot, "", fmt.Sprintf("line %d: %v: %s", lineNo, err, excerpt(line)))
		}
		p.warn(lineNo, err.Error()+": "+excerpt(line))
	}
	p.finish()
	p.reachThroughLabels()
	return p.o, nil
}

// parser holds the state of one Parse call.
type parser struct {
	o     *Observation
	base  *url.URL // nil when the page URL is not absolute
	stack []int    // stack[d] = index of the open node at depth d
}

// warn records a defect and marks the observation incomplete.
func (p *parser) warn(lineNo int, msg string) {
	p.o.Complete = false
	p.o.Warnings = append(p.o.Warnings, fmt.Sprintf("line %d: %s", lineNo, msg))
}

// line reads one non-blank line. An error means the line was not read at
// all; problems the parser can work around are warned about instead.
func (p *parser) line(lineNo int, line string) error {
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	rest := line[indent:]
	if !strings.HasPrefix(rest, "- ") {
		return errors.New(`not a "- " list item`)
	}
	if len(p.o.Nodes) == 0 && indent != 0 {
		return errors.New("first item is indented")
	}
	key, value, hasValue, err := splitItem(rest[2:])
	if err != nil {
		return err
	}
	if indent%2 != 0 {
		p.warn(lineNo, "odd indentation, read as one level less")
	}
	depth := indent / 2
	if strings.HasPrefix(key, "/") {
		return p.property(lineNo, depth, key[1:], value, hasValue)
	}
	n := Node{Depth: depth, Parent: -1, Line: lineNo}
	if key == "text" {
		n.Role, n.Text = "text", value
	} else {
		if err := p.readKey(&n, key); err != nil {
			return err
		}
		n.Text = value
	}
	if depth > len(p.stack) {
		p.warn(lineNo, fmt.Sprintf("indented %d levels below its parent, attached to the deepest open node", depth-len(p.stack)+1))
		depth = len(p.stack)
		n.Depth = depth
	}
	idx := len(p.o.Nodes)
	if depth > 0 {
		n.Parent = p.stack[depth-1]
		parent := &p.o.Nodes[n.Parent]
		parent.Children = append(parent.Children, idx)
	}
	p.stack = append(p.stack[:depth], idx)
	if n.RawRef != "" {
		if prev, dup := p.o.byRef[n.RawRef]; dup {
			p.warn(lineNo, fmt.Sprintf("ref %s already used on line %d; lookups return the first", n.RawRef, p.o.Nodes[prev].Line))
		} else {
			p.o.byRef[n.RawRef] = idx
		}
		n.Ref = qualify(p.o.SnapshotID, n.RawRef)
	}
	p.o.Nodes = append(p.o.Nodes, n)
	return nil
}

// property applies a "- /key: value" line to the node that owns it.
func (p *parser) property(lineNo, depth int, key, value string, hasValue bool) error {
	if depth == 0 || depth > len(p.stack) {
		return errors.New("property line without an owning node")
	}
	if !hasValue {
		return errors.New("property line without a value")
	}
	owner := &p.o.Nodes[p.stack[depth-1]]
	switch key {
	case "url":
		owner.RawURL = value
		owner.URL = p.resolve(value)
	case "placeholder":
		owner.Placeholder = value
	default:
		if owner.Props == nil {
			owner.Props = make(map[string]string)
		}
		owner.Props[key] = value
	}
	return nil
}

// resolve makes a /url value absolute against the page URL.
func (p *parser) resolve(raw string) string {
	if p.base == nil {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return p.base.ResolveReference(u).String()
}

// readKey reads `role "name" [attr] [attr=value]...` into n. The name is a
// JSON string; attribute names are letters and '-'; values run to ']'.
func (p *parser) readKey(n *Node, key string) error {
	i := 0
	for i < len(key) && isLetter(key[i]) {
		i++
	}
	if i == 0 {
		return errors.New("item does not start with a role")
	}
	n.Role = key[:i]
	s := strings.TrimLeft(key[i:], " ")
	if strings.HasPrefix(s, `"`) {
		name, rest, err := readJSONString(s)
		if err != nil {
			return fmt.Errorf("name: %w", err)
		}
		n.Name, n.RawName, s = TypableName(name), name, rest
	}
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return nil
		}
		if s[0] != '[' {
			return errors.New("unexpected text after role and name")
		}
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return errors.New("unterminated [attribute]")
		}
		attr, val, hasVal := strings.Cut(s[1:end], "=")
		s = s[end+1:]
		if attr == "" || strings.TrimFunc(attr, func(r rune) bool { return r < 0x80 && (isLetter(byte(r)) || r == '-') }) != "" {
			return fmt.Errorf("bad attribute name %q", attr)
		}
		if !hasVal {
			val = "true"
		}
		switch attr {
		case "ref":
			if !validRawRef(val) {
				return fmt.Errorf("bad ref %q", val)
			}
			n.RawRef = val
			n.Frame = frameOf(val)
			continue
		case "box":
			b, err := parseBox(val)
			if err != nil {
				return err
			}
			n.Box = b
			continue
		case "level":
			lv, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("bad level %q", val)
			}
			n.Level = lv
		}
		if n.States == nil {
			n.States = make(map[string]string, 2)
		}
		n.States[attr] = val
	}
}

// finish gives nodes without a ref the frame of the content they sit in.
func (p *parser) finish() {
	nodes := p.o.Nodes
	inner := make(map[int]string) // iframe node index → frame of its content
	for i := range nodes {
		if nodes[i].Role != "iframe" {
			continue
		}
		_, end := p.o.subtree(i)
		inner[i] = nodes[i].Frame
		for j := i + 1; j < end; j++ {
			if nodes[j].RawRef != "" {
				inner[i] = nodes[j].Frame
				break
			}
		}
	}
	for i := range nodes {
		n := &nodes[i]
		if n.RawRef != "" || n.Parent < 0 {
			continue
		}
		if f, ok := inner[n.Parent]; ok {
			n.Frame = f
		} else {
			n.Frame = nodes[n.Parent].Frame
		}
	}
}

// splitItem splits the text after "- " into key and value. The key may be
// a YAML single-quoted scalar; a plain key ends at the first ": " (a plain
// key cannot contain one: Playwright quotes such keys). The value, if any,
// may be a YAML double-quoted scalar; a plain value is taken verbatim.
func splitItem(item string) (key, value string, hasValue bool, err error) {
	var rest string
	if strings.HasPrefix(item, "'") {
		key, rest, err = readSingleQuoted(item)
		if err != nil {
			return "", "", false, fmt.Errorf("key: %w", err)
		}
	} else if i := strings.Index(item, ": "); i >= 0 {
		key, rest = item[:i], item[i:]
	} else if strings.HasSuffix(item, ":") {
		key, rest = item[:len(item)-1], ":"
	} else {
		key = item
	}
	switch {
	case rest == "" || rest == ":":
		return key, "", false, nil
	case strings.HasPrefix(rest, ": "):
		v := rest[2:]
		switch {
		case strings.HasPrefix(v, `"`):
			value, err = readDoubleQuoted(v)
		case strings.HasPrefix(v, "'"):
			var tail string
			value, tail, err = readSingleQuoted(v)
			if err == nil && tail != "" {
				err = errors.New("text after closing quote")
			}
		default:
			value = v
		}
		if err != nil {
			return "", "", false, fmt.Errorf("value: %w", err)
		}
		return key, value, true, nil
	}
	return "", "", false, errors.New("unexpected text after quoted key")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// excerpt shortens a line for a warning.
func excerpt(line string) string {
	const max = 80
	if len(line) <= max {
		return strconv.Quote(line)
	}
	cut := max
	for cut > 0 && line[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return strconv.Quote(line[:cut]) + "…"
}
