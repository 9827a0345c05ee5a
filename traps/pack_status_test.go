package traps

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestPackRouteRefusesA1xxStatus is issue 49.4 at the pack: a route answering status: 101 made the
// proxy relay the connection blind. A route's status is a final answer, 200..599; lint says why.
func TestPackRouteRefusesA1xxStatus(t *testing.T) {
	for status, want := range map[string]string{
		"101": "mem/s.trap.yml:9:127: routes[0].response.status: 101 is no final answer: a route answers 200..599 (a 101 would switch protocols",
		"100": "routes[0].response.status: 100 is no final answer",
		"99":  "routes[0].response.status: want an HTTP status 200..599",
		"600": "routes[0].response.status: want an HTTP status 200..599",
	} {
		pack := strings.Replace(bodyPack, "record: pratica.deleted}", "record: pratica.deleted, response: {status: "+status+"}}", 1)
		_, err := LoadPackFS(fstest.MapFS{"s.trap.yml": {Data: []byte(pack)}}, "mem")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("status %s: %v; want %q", status, err, want)
		}
	}
	ok := strings.Replace(bodyPack, "record: pratica.deleted}", "record: pratica.deleted, response: {status: 204}}", 1)
	if _, err := LoadPackFS(fstest.MapFS{"s.trap.yml": {Data: []byte(ok)}}, "mem"); err != nil {
		t.Errorf("status 204: %v", err)
	}
}
