package bypass

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

// ReadProxyLog reads the proxy decision log a run left in its evidence folder.
func ReadProxyLog(evidenceDir string) ([]proxy.Decision, error) {
	path := filepath.Join(evidenceDir, world.ProxyLogFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read proxy log: %w", err)
	}
	defer func() { _ = f.Close() }()
	var out []proxy.Decision
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var d proxy.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("read proxy log %s:%d: %w", path, line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read proxy log %s: %w", path, err)
	}
	return out, nil
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
