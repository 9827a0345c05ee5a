package toolmap

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	dtLine = regexp.MustCompile(`(?s)^( *)uid=(\S+) (\S+)(.*)$`)
	dtName = regexp.MustCompile(`^ "((?:[^"\\]|\\.)*)"`)
	dtAttr = regexp.MustCompile(`^ ([a-zA-Z-]+)(?:="((?:[^"\\]|\\.)*)")?`)
)

// abBrackets matches agent-browser's combined attribute brackets, "[level=1, ref=e1]".
var abBrackets = regexp.MustCompile(`\[([^\[\]"]*,[^\[\]"]*)\]`)

// abEmpty is what agent-browser prints for a page whose accessibility tree has nothing in it (a blank
// page, a document between two navigations); "(no interactive elements)" is its -i mode's.
var abEmpty = []string{"(empty page)", "(no interactive elements)"}

// NormalizeRefs rewrites agent-browser's snapshot into Playwright's AI-mode layout: one bracket per
// attribute ("[level=1] [ref=e1]"), and an item key whose name holds a quote, a colon or a backslash
// in YAML single quotes, as Playwright's renderer writes it; the rest is the same YAML-like tree. The
// tool's note for an empty page is the empty snapshot: a page with nothing on it is an observation
// (no nodes, complete), not a broken tool.
func NormalizeRefs(raw string) string {
	if slices.Contains(abEmpty, strings.TrimSpace(raw)) {
		return ""
	}
	lines := strings.Split(raw, "\n")
	for i, line := range lines {
		indent, item, ok := strings.Cut(line, "- ")
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		item = abBrackets.ReplaceAllStringFunc(item, func(m string) string {
			parts := strings.Split(m[1:len(m)-1], ",")
			for i, p := range parts {
				parts[i] = "[" + strings.TrimSpace(p) + "]"
			}
			return strings.Join(parts, " ")
		})
		end := keyEnd(item)
		key := item[:end]
		if strings.HasPrefix(key, "'") || !strings.ContainsAny(key, "\\:'#") {
			lines[i] = indent + "- " + item
			continue
		}
		lines[i] = indent + "- '" + strings.ReplaceAll(key, "'", "''") + "'" + item[end:]
	}
	return strings.Join(lines, "\n")
}

// keyEnd returns where the key of a snapshot item ends: after the role, the JSON-quoted name and the
// [attribute] brackets, before ":" and an inline value.
func keyEnd(item string) int {
	i := 0
	for i < len(item) && (item[i] >= 'a' && item[i] <= 'z' || item[i] >= 'A' && item[i] <= 'Z' || item[i] == '/') {
		i++
	}
	if strings.HasPrefix(item[i:], ` "`) {
		j := i + 2
		for j < len(item) && item[j] != '"' {
			if item[j] == '\\' {
				j++
			}
			j++
		}
		i = min(j+1, len(item))
	}
	for strings.HasPrefix(item[i:], " [") {
		k := strings.IndexByte(item[i:], ']')
		if k < 0 {
			break
		}
		i += k + 1
	}
	return i
}

// ConvertUIDLines rewrites a take_snapshot answer into Playwright's AI-mode aria snapshot and returns
// the map from the refs it gave to the tool's uids. A line it cannot read is an error: the page would
// otherwise be judged on a partial tree.
func ConvertUIDLines(answer string) (string, map[string]string, error) {
	var b strings.Builder
	uids := map[string]string{}
	seen := false
	for i, line := range joinContinued(strings.Split(answer, "\n")) {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := dtLine.FindStringSubmatch(line)
		if m == nil {
			if !seen {
				continue // prose before the tree
			}
			return "", nil, fmt.Errorf("take_snapshot: line %d is no uid line: %q", i+1, Shorten(line, 120))
		}
		seen = true
		depth := len(m[1]) / 2
		indent := strings.Repeat("  ", depth)
		role, rest := m[3], m[4]
		name := ""
		if nm := dtName.FindStringSubmatch(rest); nm != nil {
			name, rest = nm[1], rest[len(nm[0]):]
		}
		attrs := map[string]string{}
		for {
			am := dtAttr.FindStringSubmatch(rest)
			if am == nil {
				break
			}
			attrs[am[1]], rest = am[2], rest[len(am[0]):]
		}
		switch role {
		case "StaticText":
			fmt.Fprintf(&b, "%s- text: %s\n", indent, jsonString(name))
			continue
		case "InlineTextBox", "LineBreak":
			continue
		case "RootWebArea", "none", "generic":
			role = "generic"
		}
		ref := "e" + strconv.Itoa(len(uids)+1)
		uids[ref] = m[2]
		fmt.Fprintf(&b, "%s- %s", indent, strings.ToLower(role))
		if name != "" {
			b.WriteString(" " + jsonString(name))
		}
		if lv := attrs["level"]; lv != "" {
			fmt.Fprintf(&b, " [level=%s]", lv)
		}
		for _, flag := range []string{"checked", "disabled", "expanded", "selected"} {
			if _, ok := attrs[flag]; ok {
				fmt.Fprintf(&b, " [%s]", flag)
			}
		}
		fmt.Fprintf(&b, " [ref=%s]\n", ref)
		if u := attrs["url"]; u != "" && role != "generic" {
			fmt.Fprintf(&b, "%s  - /url: %s\n", indent, u)
		}
	}
	if !seen {
		return "", nil, fmt.Errorf("take_snapshot: no uid lines in %q", Shorten(answer, maxQuote))
	}
	// Keys whose name holds a colon or a quote are single-quoted, as Playwright writes them.
	return NormalizeRefs(strings.TrimRight(b.String(), "\n")), uids, nil
}

// joinContinued joins a uid line whose quoted value runs on over the next lines (a name with a line
// break: the tool prints it raw) with those lines, so the parser sees one item per node. A line is a
// continuation only while the line before has an open quote; anything else stays its own line.
func joinContinued(lines []string) []string {
	var out []string
	open := false
	for _, l := range lines {
		if open && len(out) > 0 {
			out[len(out)-1] += "\n" + l
		} else {
			out = append(out, l)
		}
		if open || dtLine.MatchString(l) {
			open = (strings.Count(out[len(out)-1], `"`)-strings.Count(out[len(out)-1], `\"`))%2 == 1
		}
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// maxQuote bounds the part of a tool's answer an error quotes.
const maxQuote = 600

// Shorten cuts s to at most n bytes (not inside a UTF-8 sequence) and marks the cut with "…": how a
// tool's answer is quoted in an error or a log line.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // not in the middle of a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
