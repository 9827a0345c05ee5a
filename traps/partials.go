package traps

import (
	_ "embed"
	"fmt"
	htmltemplate "html/template"
)

// layoutSrc is the shared page partials: "head" (the document up to the stylesheet, for a page that
// adds to its head and closes it), "page" and "portal-page" (head, body and the title as the h1, in a
// plain main or in the portal's 720px one) and "foot" (closes main, body and the document).
//
//go:embed layout.html
var layoutSrc string

// partials holds layout.html parsed once; it is read-only after init and only ever cloned, never
// executed (a template set that has run cannot be cloned). A layout that does not parse leaves it
// empty and partialsErr set, which Partials and CheckPages return.
var partials, partialsErr = parsePartials(layoutSrc)

func parsePartials(src string) (*htmltemplate.Template, error) {
	t, err := htmltemplate.New("layout.html").Funcs(pageFuncs).Parse(src)
	if err != nil {
		return htmltemplate.New("layout.html").Funcs(pageFuncs), fmt.Errorf("trap page partials: %w", err)
	}
	return t, nil
}

// Partials returns a new template set holding the shared page partials ("head", "page",
// "portal-page", "foot"; docs/trap-packs.md) and the pack page functions (comment), for a caller to
// add its own pages to: the one home of the world's document head.
func Partials() (*htmltemplate.Template, error) {
	if partialsErr != nil {
		return nil, partialsErr
	}
	return partials.Clone()
}
