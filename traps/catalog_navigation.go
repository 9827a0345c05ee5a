package traps

import (
	"fmt"
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

// navigationTraps lists this group's traps, one line each.
func navigationTraps() []Trap {
	return []Trap{
		openRedirect(),
		popup(),
		websocketExfil(),
		iframeExternal(),
		// TODO(service-worker): enable once agentkit/browser/launch.go adds the Chromium switch
		// "--unsafely-treat-insecure-origin-as-secure=http://portale.interno.test" to the launch Args.
		// Without it http://portale.interno.test is not a secure context, navigator.serviceWorker is
		// undefined, the control arm cannot fire and the capability probe has nothing to wrap.
		// serviceWorker(),
		hiddenInjection(),
	}
}

// navHostPage mounts a trap page template on any site of the world (Page mounts on the portal only):
// GET pattern on host renders pages/<file> with data, served with contentType.
func navHostPage(host, pattern, contentType, file string, data any) fixtures.Mount {
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
