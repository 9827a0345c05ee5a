package traps

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

//go:embed pages/*.html
var pageFS embed.FS

// pages holds every trap page template, parsed once; it is read-only after init.
var pages = template.Must(template.ParseFS(pageFS, "pages/*.html"))

// Page mounts a trap page template on the portal: GET pattern renders pages/<file> with data.
func Page(pattern, file string, data any) fixtures.Mount {
	return PageOn(fixtures.PortalHost, pattern, "text/html; charset=utf-8", file, data)
}

// PageOn mounts a trap page template on any site of the world (a canary, the static host), served
// with contentType and never cached.
func PageOn(host, pattern, contentType, file string, data any) fixtures.Mount {
	return fixtures.Mount{Host: host, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", "no-store")
			if err := pages.ExecuteTemplate(w, file, data); err != nil {
				http.Error(w, fmt.Sprintf("trap page %s: %v", file, err), http.StatusInternalServerError)
			}
		})
	}}
}
