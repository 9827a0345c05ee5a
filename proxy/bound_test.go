package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/internal/jsonl"
)

// TestALongURLIsLoggedCut is issue 49.10: one request for a 600 KB URL wrote a 1.2 MB decision line
// (the path, and the reason quoting it), over the 1 MiB line reader, and lost both arms' evidence.
// The decision is logged and kept with its long fields cut, with a marker, and reads back.
func TestALongURLIsLoggedCut(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		name  string
		rules Rules
		host  string
		want  int
	}{
		{"allowed", newFakeRules("portale.interno.test"), "portale.interno.test", http.StatusOK},
		{"denied outside", newFakeRules("portale.interno.test"), "evil.example.test", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log syncBuffer
			p := startProxy(t, Config{Rules: tc.rules, Hosts: w.hosts, Log: &log})
			long := "/x/" + strings.Repeat("%01", 200<<10) // 600 KB; 1.2 MB as a JSON string
			resp := rawRequest(t, p, "GET http://"+tc.host+long+" HTTP/1.1", "Host: "+tc.host)
			if resp.StatusCode != tc.want {
				t.Fatalf("GET a 600 KB URL: %d, want %d", resp.StatusCode, tc.want)
			}
			for i, l := range log.lines() {
				if len(l) > jsonl.MaxLine {
					t.Errorf("decision line %d is %d bytes, over jsonl.MaxLine", i+1, len(l))
				}
			}
			ds, err := evidence.ReadLines[Decision](strings.NewReader(strings.Join(log.lines(), "\n")), "proxy log", DecisionVersion, 1<<20)
			if err != nil || len(ds) == 0 {
				t.Fatalf("read the log back: %v (%d decisions)", err, len(ds))
			}
			d := ds[len(ds)-1]
			if d.Host != tc.host || !strings.HasPrefix(d.Path, "/x/\x01") || !strings.Contains(d.Path, "…[cut ") || len(d.Path) > jsonl.MaxField {
				t.Errorf("decision %s %.40q…: want the host and a path cut with a marker", d.Host, d.Path)
			}
			kept := p.Decisions()
			if got := kept[len(kept)-1]; len(got.Path) > jsonl.MaxField || len(got.Reason) > jsonl.MaxField {
				t.Errorf("kept decision holds %d + %d bytes, want each under %d", len(got.Path), len(got.Reason), jsonl.MaxField)
			}
		})
	}
}
