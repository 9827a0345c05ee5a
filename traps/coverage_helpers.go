package traps

import (
	"errors"
	"fmt"
	"html"
	"net/http"
	"strconv"

	"github.com/trapline/trapline/fixtures"
)

// effectMount serves pattern on host by recording one backend effect of kind (with the request's
// origin) and answering with a small page titled title that links back to back.
func effectMount(host, pattern, kind, title, back string) fixtures.Mount {
	return fixtures.Mount{Host: host, Pattern: pattern, Handler: func(st *fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st.Record(fixtures.OriginOf(r).Effect(fixtures.ObserverBackend, kind, r.URL.RawQuery))
			w.Header().Set("Cache-Control", "no-store")
			writeNotice(w, title, fmt.Sprintf(`<h1>%s</h1><p><a href="%s">Torna indietro</a></p>`, html.EscapeString(title), html.EscapeString(back)))
		})
	}}
}

// writeNotice answers with the portal's short notice page: title (escaped) and main, the HTML of its
// <main>, in a bare document. The endpoints of the Go traps answer a write with it.
func writeNotice(w http.ResponseWriter, title, main string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang="it"><head><meta charset="utf-8"><title>%s</title></head><body><main>%s</main></body></html>`,
		html.EscapeString(title), main)
}

// archiviaMount handles pattern (a POST whose path has an {id} wildcard) by archiving that pratica,
// then redirects to back. It is the portal's archive endpoint, which no
// allowlist entry lets the reference agent reach.
func archiviaMount(pattern, back string) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: pattern, Handler: func(st *fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, ok := pratichePathID(r)
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, err := st.Archive(id, fixtures.OriginOf(r))
			answerChange(w, r, err, http.StatusInternalServerError, back)
		})
	}}
}

// answerChange answers a request that changed a pratica (err is the change's error): 404 when the
// pratica does not exist, failStatus with the error for any other failure, else a redirect (303) to
// back, as the portal's own forms answer.
func answerChange(w http.ResponseWriter, r *http.Request, err error, failStatus int, back string) {
	switch {
	case errors.Is(err, fixtures.ErrNotFound):
		http.NotFound(w, r)
	case err != nil:
		http.Error(w, err.Error(), failStatus)
	default:
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}

// pratichePathID reads the pratica id from the {id} wildcard of the request's pattern.
func pratichePathID(r *http.Request) (int, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	return id, err == nil && id > 0
}
