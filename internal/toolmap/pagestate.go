package toolmap

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page-state forms ParseState reads.
const (
	FormAria     = "aria"     // Playwright's AI-mode aria snapshot (a ```yaml block or bare)
	FormRefs     = "refs"     // agent-browser's snapshot: "[level=1, ref=e1]" brackets
	FormUIDs     = "uids"     // chrome-devtools-mcp's "uid=1_2 button \"...\"" lines
	FormNumbered = "numbered" // a numbered element list: "[3] <button>Elimina</button>", "3. button \"Elimina\""
	FormHTML     = "html"     // the page's HTML
	FormText     = "text"     // plain text: read, nothing to act on
)

// State is a page state in any form, rewritten as Playwright's AI-mode aria snapshot (the format
// agentkit/observe parses) with a handle per ref: what the tool's own calls name the element by.
type State struct {
	Form string
	// URL is the page's address when the answer says it ("- Page URL: ...", "Navigated to ...").
	URL string
	// Aria is the snapshot in Playwright's layout, refs e1, e2, ... (or the tool's own refs).
	Aria string
	// Elements maps each ref of Aria to the element's handles.
	Elements map[string]Element
}

// ErrUnreadable says a tool's answer holds no page state trapline can read.
var ErrUnreadable = errors.New("no readable page state")

var (
	pwURL      = regexp.MustCompile(`(?m)^- (?:\*\*)?Page URL:(?:\*\*)? (\S+)`) // a fork's "- **Page URL:** ..." too
	navURL     = regexp.MustCompile(`(?m)^(?:Navigated to|URL:|Page URL:|url:)\s*(\S+)`)
	ariaLine   = regexp.MustCompile(`(?m)^\s*- [a-zA-Z]+(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])* ?(?::|$)`)
	refAttr    = regexp.MustCompile(`\[(?:[^\]]*, *)?ref=[a-zA-Z0-9]+`)
	numbered   = regexp.MustCompile(`^\s*\[(\d+)\]\s*(.*)$|^\s*(\d+)[.):]\s+(.*)$`)
	emptyLabel = regexp.MustCompile(`^\s*\[\](.*)$`)
	tagged     = regexp.MustCompile(`(?s)^(?:\[[^\]]*\]\s*)?<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>(.*?)(?:</[a-zA-Z0-9]+>)?\s*$`)
	roleName   = regexp.MustCompile(`^([a-zA-Z]+)(?::\s*|\s+)"?([^"]*)"?\s*$`)
	htmlStart  = regexp.MustCompile(`(?i)<(?:!doctype|html|body|head|div|form|button|a\s|main|section|table|p>)`)
)

// axLine is an accessibility tree's line as WebArena and BrowserGym write it: a role, its name in
// single quotes, then its properties ("[1234] button 'Elimina pratica' focused: True").
var axLine = regexp.MustCompile(`^([a-zA-Z]+)\s+'((?:[^'\\]|\\.)*)'(?:[\s,].*)?$`)

// ParseState reads a tool's answer in whichever form it comes and rewrites it as an aria snapshot. An
// answer with nothing readable (empty, an image only, a bare error) wraps ErrUnreadable with the reason.
func ParseState(answer string) (*State, error) {
	st := &State{Elements: map[string]Element{}}
	if m := pwURL.FindStringSubmatch(answer); m != nil {
		st.URL = m[1]
	} else if m := navURL.FindStringSubmatch(answer); m != nil {
		st.URL = m[1]
	} else {
		st.URL = tabURL(answer) // an agent's prompt that lists its tabs (numbered.go)
	}
	trimmed := strings.TrimSpace(answer)
	if trimmed == "" {
		return nil, fmt.Errorf("%w: the answer is empty", ErrUnreadable)
	}
	if page, ok, err := findScriptPage(answer); ok { // trapline's own page-reading script (scripts.go)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
		}
		return parseScriptPage(page), nil
	}
	// Playwright MCP's markdown: the ```yaml block of its ### Snapshot section.
	if _, rest, ok := strings.Cut(answer, "```yaml\n"); ok {
		if body, _, ok := strings.Cut(rest, "```"); ok {
			st.Form, st.Aria = FormAria, strings.TrimRight(body, "\n")
			st.addRefs()
			return st, nil
		}
	}
	if strings.Contains(answer, "uid=") && dtLine.MatchString(firstUIDLine(answer)) {
		raw, uids, err := ConvertUIDLines(answer)
		if err != nil {
			return nil, err
		}
		st.Form, st.Aria = FormUIDs, raw
		for ref, uid := range uids {
			st.Elements[ref] = Element{Ref: ref, UID: uid}
		}
		st.fillRoles()
		return st, nil
	}
	if ariaLine.MatchString(answer) && refAttr.MatchString(answer) {
		body := ariaBody(answer)
		st.Form, st.Aria = FormAria, body
		if strings.Contains(body, ", ref=") || strings.Contains(body, "ref=e") && strings.Contains(body, ", ") {
			st.Form = FormRefs
		}
		st.Aria = NormalizeRefs(body)
		st.addRefs()
		return st, nil
	}
	if aria, els, ok := parseBrowserUse(answer); ok { // numbered.go
		st.Form, st.Aria, st.Elements = FormNumbered, aria, els
		return st, nil
	}
	if aria, els, ok := parseNumbered(answer); ok {
		st.Form, st.Aria, st.Elements = FormNumbered, aria, els
		return st, nil
	}
	if htmlStart.MatchString(answer) {
		aria, els, err := parseHTML(answer)
		if err == nil && aria != "" {
			st.Form, st.Aria, st.Elements = FormHTML, aria, els
			return st, nil
		}
	}
	var b strings.Builder
	for _, line := range strings.Split(trimmed, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			fmt.Fprintf(&b, "- text: %s\n", jsonString(line))
		}
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("%w: %q", ErrUnreadable, Shorten(trimmed, 200))
	}
	st.Form, st.Aria = FormText, strings.TrimRight(b.String(), "\n")
	return st, nil
}

func firstUIDLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "uid=") {
			return l
		}
	}
	return ""
}

// ariaBody drops prose before and after the snapshot's lines (a header, a "### Result" note).
func ariaBody(s string) string {
	lines := strings.Split(s, "\n")
	start, end := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "- ") {
			if start < 0 {
				start = i
			}
			end = i
		}
	}
	if start < 0 {
		return ""
	}
	return strings.Join(lines[start:end+1], "\n")
}

var ariaRef = regexp.MustCompile(`(?m)^(\s*)- ([a-zA-Z]+)(?: "((?:[^"\\]|\\.)*)")?.*\[ref=([a-zA-Z0-9]+)\]`)

// addRefs makes a handle of each ref of an aria snapshot: the tool's own ref.
func (st *State) addRefs() {
	for _, m := range ariaRef.FindAllStringSubmatch(st.Aria, -1) {
		name, _ := strconv.Unquote(`"` + m[3] + `"`)
		st.Elements[m[4]] = Element{Ref: m[4], Role: m[2], Name: name}
	}
}

func (st *State) fillRoles() {
	for _, m := range ariaRef.FindAllStringSubmatch(st.Aria, -1) {
		e := st.Elements[m[4]]
		e.Role = m[2]
		e.Name, _ = strconv.Unquote(`"` + m[3] + `"`)
		st.Elements[m[4]] = e
	}
}

// tagRole is the ARIA role of an HTML element in a numbered list or HTML page.
func tagRole(tag string, attrs map[string]string) string {
	if r := attrs["role"]; r != "" {
		return strings.Fields(r)[0]
	}
	switch strings.ToLower(tag) {
	case "a":
		return "link"
	case "button", "summary":
		return "button"
	case "select":
		return "combobox"
	case "textarea":
		return "textbox"
	case "input":
		switch strings.ToLower(attrs["type"]) {
		case "checkbox":
			return "checkbox"
		case "radio":
			return "radio"
		case "submit", "button", "reset", "image":
			return "button"
		case "hidden":
			return ""
		}
		return "textbox"
	case "h1", "h2", "h3", "h4", "h5", "h6":
		return "heading"
	case "img":
		return "img"
	case "option":
		return "option"
	}
	return "generic"
}

var attrRe = regexp.MustCompile(`([a-zA-Z-]+)="([^"]*)"`)

// parseNumbered reads a numbered element list: @agent-infra/mcp-server-browser's
// "[3] [context] <button>Elimina pratica</button>" (and its "[]text" lines), or "3. button \"Elimina\"".
func parseNumbered(answer string) (string, map[string]Element, bool) {
	var b strings.Builder
	els := map[string]Element{}
	items := 0
	for _, line := range strings.Split(answer, "\n") {
		if m := emptyLabel.FindStringSubmatch(line); m != nil {
			if t := strings.TrimSpace(m[1]); t != "" {
				fmt.Fprintf(&b, "- text: %s\n", jsonString(t))
			}
			continue
		}
		m := numbered.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		num, rest := m[1], m[2]
		if num == "" {
			num, rest = m[3], m[4]
		}
		idx, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		var role, name string
		attrs := map[string]string{}
		if t := tagged.FindStringSubmatch(strings.TrimSpace(rest)); t != nil {
			for _, a := range attrAll(t[2]) {
				attrs[a[0]] = a[1]
			}
			role, name = tagRole(t[1], attrs), strings.TrimSpace(html.UnescapeString(t[3]))
		} else if ax := axLine.FindStringSubmatch(strings.TrimSpace(rest)); ax != nil {
			role, name = strings.ToLower(ax[1]), strings.ReplaceAll(ax[2], `\'`, "'")
		} else if rn := roleName.FindStringSubmatch(strings.TrimSpace(rest)); rn != nil {
			role, name = strings.ToLower(rn[1]), rn[2]
		} else {
			continue
		}
		if role == "" {
			continue
		}
		items++
		i := idx
		ref := "e" + strconv.Itoa(idx)
		els[ref] = Element{Index: &i, Role: role, Name: name}
		writeAriaLine(&b, role, name, ref, attrs["href"])
	}
	if items == 0 {
		return "", nil, false
	}
	return NormalizeRefs(strings.TrimRight(b.String(), "\n")), els, true
}

func attrAll(s string) [][2]string {
	var out [][2]string
	for _, m := range attrRe.FindAllStringSubmatch(s, -1) {
		out = append(out, [2]string{strings.ToLower(m[1]), html.UnescapeString(m[2])})
	}
	return out
}

// parseHTML reads a page's HTML: its interactive elements (links, buttons, fields), headings and text,
// each element with a CSS selector from its id or its path of nth-of-type steps.
func parseHTML(src string) (string, map[string]Element, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", nil, fmt.Errorf("parse the page's HTML: %w", err)
	}
	var b strings.Builder
	els := map[string]Element{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Head, atom.Template, atom.Noscript:
				return
			}
			attrs := map[string]string{}
			for _, a := range n.Attr {
				attrs[strings.ToLower(a.Key)] = a.Val
			}
			role := tagRole(n.Data, attrs)
			interactive := role != "generic" && role != "" && role != "img" || attrs["onclick"] != ""
			if interactive {
				name := accName(n, attrs)
				if role == "heading" {
					fmt.Fprintf(&b, "- heading %s [level=%s]\n", jsonString(name), n.Data[1:])
					return
				}
				ref := "e" + strconv.Itoa(len(els)+1)
				els[ref] = Element{Selector: cssPath(n, attrs), Role: role, Name: name}
				writeAriaLine(&b, role, name, ref, attrs["href"])
				if role == "combobox" {
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						if c.DataAtom == atom.Option {
							fmt.Fprintf(&b, "  - option %s\n", jsonString(strings.TrimSpace(textOf(c))))
						}
					}
				}
				return
			}
		}
		if n.Type == html.TextNode {
			if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
				fmt.Fprintf(&b, "- text: %s\n", jsonString(t))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.TrimRight(b.String(), "\n"), els, nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func accName(n *html.Node, attrs map[string]string) string {
	for _, k := range []string{"aria-label", "title", "alt"} {
		if v := strings.TrimSpace(attrs[k]); v != "" {
			return v
		}
	}
	if t := textOf(n); t != "" {
		return t
	}
	for _, k := range []string{"value", "placeholder", "name"} {
		if v := strings.TrimSpace(attrs[k]); v != "" {
			return v
		}
	}
	return ""
}

// cssPath is a selector for n: "#id" when it has an id, else its path from body of
// tag:nth-of-type(k) steps.
func cssPath(n *html.Node, attrs map[string]string) string {
	if id := attrs["id"]; id != "" && regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`).MatchString(id) {
		return "#" + id
	}
	var steps []string
	for cur := n; cur != nil && cur.Type == html.ElementNode && cur.DataAtom != atom.Html; cur = cur.Parent {
		if cur.DataAtom == atom.Body {
			steps = append(steps, "body")
			break
		}
		k := 1
		for s := cur.PrevSibling; s != nil; s = s.PrevSibling {
			if s.Type == html.ElementNode && s.Data == cur.Data {
				k++
			}
		}
		steps = append(steps, fmt.Sprintf("%s:nth-of-type(%d)", cur.Data, k))
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	return strings.Join(steps, " > ")
}

// writeAriaLine writes one element as Playwright's aria snapshot would: "- role "name" [ref=R]", and a
// link's "/url:" line below it.
func writeAriaLine(b *strings.Builder, role, name, ref, href string) {
	if !plainRole.MatchString(role) { // a page's role attribute is the page's words, not a role
		role = "generic"
	}
	href = strings.Join(strings.Fields(href), "") // one line: a line break in the attribute starts none
	fmt.Fprintf(b, "- %s", role)
	if name != "" {
		b.WriteString(" " + jsonString(name))
	}
	fmt.Fprintf(b, " [ref=%s]\n", ref)
	if href != "" && role == "link" {
		fmt.Fprintf(b, "  - /url: %s\n", href)
	}
}
