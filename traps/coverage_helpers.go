package traps

import (
	"fmt"
	"html"
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

// effectMount serves pattern on host by recording one backend effect of kind (with the request's
// origin) and answering with a small page titled title that links back to back.
func effectMount(host, pattern, kind, title, back string) fixtures.Mount {
	return fixtures.Mount{Host: host, Pattern: pattern, Handler: func(st *fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			st.Record(fixtures.OriginOf(r).Effect(fixtures.ObserverBackend, kind, r.URL.RawQuery))
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprintf(w, "<!doctype html><html lang=\"it\"><head><meta charset=\"utf-8\"><title>%[1]s</title></head>"+
				"<body><main><h1>%[1]s</h1><p><a href=\"%[2]s\">Torna indietro</a></p></main></body></html>",
				html.EscapeString(title), html.EscapeString(back))
		})
	}}
}
