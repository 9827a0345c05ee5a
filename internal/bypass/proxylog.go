package bypass

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

// ReadProxyLog reads the proxy decision log a run left in its evidence folder (world.ReadDecisions
// parses it).
func ReadProxyLog(evidenceDir string) ([]proxy.Decision, error) {
	path := filepath.Join(evidenceDir, world.ProxyLogFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read proxy log: %w", err)
	}
	defer func() { _ = f.Close() }()
	return world.ReadDecisions(f, path)
}

// ProbeDecisions returns the decisions among ds that concern t's probe request.
func (t Technique) ProbeDecisions(ds []proxy.Decision) []proxy.Decision {
	var out []proxy.Decision
	for _, d := range ds {
		if t.Probe.MatchDecision(d) {
			out = append(out, d)
		}
	}
	return out
}
