package toolmap

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
)

// Numbered element lists in the prompt of an agent that offers no tools: browser-use's
// "Interactive elements:" section (its element's index is what its click_element_by_index and
// input_text actions name), and the generic "[N] role "name"" and "N: role name" shapes.
//
// browser-use (npm 0.8.0, dom/views.js clickable_elements_to_string) writes one element as
// "\t*[N]<tag k=v k2=v2>text />": tabs for depth, "*" for an element new since the last step,
// attribute values unquoted and capped at 15 characters, the text running on over lines up to " />";
// the page's other text stands on lines of its own between them.

var (
	buStart   = regexp.MustCompile(`^\s*\*?\[(\d+)\]<([a-zA-Z][a-zA-Z0-9-]*)`)
	buAttrKey = regexp.MustCompile(`(?:^|\s)([a-zA-Z][a-zA-Z0-9_:-]*)=`)
	tabLine   = regexp.MustCompile(`(?m)^Tab ([0-9A-Za-z]+): (\S+)`)
	curTab    = regexp.MustCompile(`(?m)^Current tab: ([0-9A-Za-z]+)`)
	activeTab = regexp.MustCompile(`(?m)^\[ACTIVE\] .*\((https?://[^)\s]+)\)\s*$`)
)

// knownRoles are the ARIA roles a "[N] role "name"" line may name: a line whose first word is no
// role ("1. Read the page") is prose, not an element.
var knownRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "combobox": true, "listbox": true,
	"option": true, "checkbox": true, "radio": true, "switch": true, "slider": true, "spinbutton": true,
	"menuitem": true, "tab": true, "heading": true, "img": true, "cell": true, "row": true,
}

// HasNumberedList reports whether text holds a numbered element list in one of the shapes ParseState
// reads (browser-use's, "[N] <tag>", "[N] role "name"", "N: role name"), strictly: a numbered line
// of prose is not one.
func HasNumberedList(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if buStart.MatchString(line) {
			return true
		}
		m := numbered.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(m[2] + m[4])
		if tagged.MatchString(rest) {
			return true
		}
		if rn := axLine.FindStringSubmatch(rest); rn != nil && knownRoles[strings.ToLower(rn[1])] {
			return true
		}
		if rn := roleName.FindStringSubmatch(rest); rn != nil && knownRoles[strings.ToLower(rn[1])] {
			return true
		}
	}
	return false
}

// tabURL is the address of the agent's current tab as its prompt lists the tabs: browser-use's
// "Current tab: 0000" and "Tab 0000: URL - title", magnitude-core's "[ACTIVE] title (URL)".
func tabURL(text string) string {
	if m := activeTab.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	tabs := tabLine.FindAllStringSubmatch(text, -1)
	cur := curTab.FindStringSubmatch(text)
	for _, t := range tabs {
		if cur != nil && t[1] == cur[1] || cur == nil && len(tabs) == 1 {
			return t[2]
		}
	}
	return ""
}

// parseBrowserUse reads browser-use's element list: each "[N]<tag ...>text />" an element whose
// Index is N, the text between them text lines. ok is false when text holds no such element.
func parseBrowserUse(text string) (string, map[string]Element, bool) {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	els := map[string]Element{}
	in := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		m := buStart.FindStringSubmatch(line)
		if m == nil {
			t := strings.TrimSpace(line)
			switch {
			case t == "[Start of page]" || strings.HasPrefix(t, "Interactive elements"):
				in = true
			case !in || t == "":
			case t == "[End of page]" || strings.HasPrefix(t, "</"):
				in = false
			default:
				fmt.Fprintf(&b, "- text: %s\n", jsonString(t))
			}
			continue
		}
		in = true
		// The element runs on to the line that ends " />" (an option list spans lines).
		body := strings.TrimSpace(line[len(m[0]):])
		for !strings.HasSuffix(body, "/>") && i+1 < len(lines) && !buStart.MatchString(lines[i+1]) {
			i++
			body += "\n" + strings.TrimSpace(lines[i])
		}
		idx, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		attrs, inner := buAttrs(strings.TrimSpace(strings.TrimSuffix(body, "/>")))
		role := tagRole(m[2], attrs)
		if role == "" {
			continue
		}
		name := ""
		if role != "combobox" { // a select's text is its options
			first, _, _ := strings.Cut(inner, "\n")
			name = strings.TrimSpace(first)
		}
		for _, k := range []string{"aria-label", "title", "placeholder", "alt", "value", "name"} {
			if name == "" {
				name = attrs[k]
			}
		}
		ref := "e" + strconv.Itoa(len(els)+1)
		els[ref] = Element{Index: &idx, Role: role, Name: name}
		writeAriaLine(&b, role, name, ref, attrs["href"])
		if role == "combobox" {
			for _, opt := range strings.Split(inner, "\n") {
				if opt = strings.TrimSpace(opt); opt != "" {
					fmt.Fprintf(&b, "  - option %s\n", jsonString(opt))
				}
			}
		}
	}
	if len(els) == 0 {
		return "", nil, false
	}
	return strings.TrimRight(b.String(), "\n"), els, true
}

// buAttrs splits browser-use's " k=v k2=v w>text" into its attributes (a value may hold spaces: it
// runs to the next " key=") and the text after the first ">".
func buAttrs(body string) (map[string]string, string) {
	head, inner, _ := strings.Cut(body, ">")
	attrs := map[string]string{}
	locs := buAttrKey.FindAllStringSubmatchIndex(head, -1)
	for i, l := range locs {
		end := len(head)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		key := strings.ToLower(head[l[2]:l[3]])
		attrs[key] = html.UnescapeString(strings.TrimSpace(head[l[1]:end]))
	}
	return attrs, strings.TrimSpace(inner)
}
