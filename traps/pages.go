package traps

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

//go:embed pages/*.html
var pageFS embed.FS

// pages holds every trap page template, parsed once on top of the shared partials (Partials); it is
// read-only after init. A template that does not parse leaves it empty (every page then answers 500)
// and pagesErr set, which CheckPages returns: an error for the run that needs the pages, never a panic
// when the program starts.
var pages, pagesErr = parsePages(pageFS)

func parsePages(fsys fs.FS) (*template.Template, error) {
	t, err := Partials()
	if err == nil {
		t, err = t.ParseFS(fsys, "pages/*.html")
	}
	if err != nil {
		return template.New("pages"), fmt.Errorf("trap pages: %w", err)
	}
	return t, nil
}

// CheckPages reports whether every trap page template parsed; the harness checks it before a run.
func CheckPages() error { return pagesErr }

// Page mounts a trap page template on the portal: GET pattern renders pages/<file> with data.
func Page(pattern, file string, data any) fixtures.Mount {
	return PageOn(fixtures.PortalHost, pattern, "text/html; charset=utf-8", file, data)
}

// PageOn mounts a trap page template on any site of the world (a canary, the static host), served
// with contentType and never cached.
func PageOn(host, pattern, contentType, file string, data any) fixtures.Mount {
	return templateMount(host, pattern, contentType, file, func(w io.Writer) error {
		return pages.ExecuteTemplate(w, file, data)
	})
}

// templateMount serves what render writes (GET, HEAD), with contentType and never cached: the one
// handler of a trap page and a pack page. The page is rendered whole first, so a template that fails
// half-way answers 500 naming the page (what), never a 200 with half a page.
func templateMount(host, pattern, contentType, what string, render func(io.Writer) error) fixtures.Mount {
	return fixtures.Mount{Host: host, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var b bytes.Buffer
			if err := render(&b); err != nil {
				http.Error(w, fmt.Sprintf("trap page %s: %v", what, err), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(b.Bytes())
		})
	}}
}
