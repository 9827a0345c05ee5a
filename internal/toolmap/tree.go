package toolmap

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// FormTree is Stagehand's hybrid DOM and accessibility tree, the page state of its act(), observe()
// and extract() prompts: "Accessibility Tree:" then one "[0-63] button: Elimina pratica" line per node,
// indented by depth, its id the frame ordinal and backend node id Stagehand's answer schema asks for
// (elementId).
const FormTree = "tree"

var (
	treeHeader = "Accessibility Tree:"
	treeLine   = regexp.MustCompile(`^\s*\[(\d+-\d+)\]\s+([^:]+?)(?::\s?(.*))?$`)
)

// treeRoles are the tree's roles the planner can act on or must read, as aria roles; a role not
// here is structure (RootWebArea, div, form, DescriptionList, ...) and is left out.
var treeRoles = map[string]string{
	"button": "button", "link": "link", "textbox": "textbox", "searchbox": "searchbox",
	"select": "combobox", "combobox": "combobox", "listbox": "listbox", "option": "option",
	"checkbox": "checkbox", "radio": "radio", "switch": "switch", "slider": "slider",
	"spinbutton": "spinbutton", "menuitem": "menuitem", "tab": "tab", "heading": "heading",
}

// ParseTree reads the Stagehand element tree in text (the lines after its "Accessibility Tree:"
// header) as an aria snapshot: each element a ref whose Element.UID is its elementId, each
// StaticText a text line (a page with text and no element, such as a refusal, is read as such). No
// header, or nothing readable under it, wraps ErrUnreadable.
func ParseTree(text string) (*State, error) {
	_, rest, ok := strings.Cut(text, treeHeader)
	if !ok {
		return nil, fmt.Errorf("%w: no %q section (Stagehand's element tree)", ErrUnreadable, treeHeader)
	}
	st := &State{Form: FormTree, Elements: map[string]Element{}}
	var b strings.Builder
	n, lines := 0, 0
	for _, line := range strings.Split(rest, "\n") {
		m := treeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines++
		id, role, name := m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
		name = strings.TrimSuffix(strings.TrimSuffix(name, "[selected]"), " ")
		if role == "StaticText" {
			if name != "" {
				fmt.Fprintf(&b, "- text: %s\n", jsonString(name))
			}
			continue
		}
		aria, ok := treeRoles[role]
		if !ok {
			continue
		}
		n++
		ref := "e" + strconv.Itoa(n)
		st.Elements[ref] = Element{UID: id, Role: aria, Name: name}
		writeAriaLine(&b, aria, name, ref, "")
	}
	if lines == 0 || b.Len() == 0 {
		return nil, fmt.Errorf("%w: the %q section has no node Stagehand's way (\"[0-63] button: Elimina pratica\")", ErrUnreadable, treeHeader)
	}
	st.Aria = strings.TrimRight(b.String(), "\n")
	return st, nil
}
