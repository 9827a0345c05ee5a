package bypass

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
)

//go:embed pages/*.html pages/*.js
var pageFS embed.FS

// pages holds every technique page template, parsed once on top of the trap pages' shared partials
// (traps.Partials); it is read-only after init.
var pages = template.Must(template.Must(traps.Partials()).ParseFS(pageFS, "pages/*.html", "pages/*.js"))

// pageData is what a technique page renders.
type pageData struct {
	Title      string
	Target     string // the URL the technique sends the browser to
	Method     string // fetch.html
	Keepalive  bool   // fetch.html
	Script     string // service-worker.html: the worker script's path
	Preconnect string // prefetch.html: the origin to preconnect to
}

// page mounts a technique page on the portal: GET pattern renders pages/<file> with data.
func page(pattern, file string, data pageData) fixtures.Mount {
	return pageOn(pattern, "text/html; charset=utf-8", file, data)
}

// pageOn is page with another content type (the service worker script).
func pageOn(pattern, contentType, file string, data pageData) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Cache-Control", "no-store")
			if err := pages.ExecuteTemplate(w, file, data); err != nil {
				http.Error(w, fmt.Sprintf("bypass page %s: %v", file, err), http.StatusInternalServerError)
			}
		})
	}}
}

// redirect mounts a portal path that answers 302 to target.
func redirect(pattern, target string) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.RedirectHandler(target, http.StatusFound)
	}}
}
