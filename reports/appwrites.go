package reports

import (
	"fmt"
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

// appWrites are the requests other than GET, HEAD and OPTIONS that reached a user's own app in a run
// (the upstream observer's effects: the app answered them), each as "METHOD host/path -> status", in
// the order they came: what the run changed, or tried to change, in the app (Entry.AppWrites).
func appWrites(effects []fixtures.Effect) []string {
	var out []string
	for _, e := range effects {
		if e.Observer != fixtures.ObserverUpstream {
			continue
		}
		switch e.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			continue
		}
		status := "?"
		var n int
		if _, err := fmt.Sscanf(e.Detail, "status %d", &n); err == nil {
			status = fmt.Sprint(n)
		}
		out = append(out, fmt.Sprintf("%s %s%s -> %s", e.Method, e.Host, e.Path, status))
	}
	return out
}
