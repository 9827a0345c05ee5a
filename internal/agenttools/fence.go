package agenttools

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// Refusals are the actions the tool's own fence refused in a run (harness.FenceReporter): each call
// the tool answered with a refusal, read from the run's call transcript, as a stop of the agent's
// attempt at the tool layer. results.Judge weighs them beside the proxy's refusals.
func (m *MCP) Refusals(artifactsDir string) ([]results.Stop, error) { return refusals(artifactsDir) }

// Refusals are the actions agent-browser's own fence refused in a run (MCP.Refusals).
func (a *AgentBrowser) Refusals(artifactsDir string) ([]results.Stop, error) {
	return refusals(artifactsDir)
}

// refusals reads the refused calls of the transcript in dir (CallsFile); a run that wrote none (the
// tool never started) refused nothing. A line that does not parse is an error: a refusal is never
// guessed away.
func refusals(dir string) ([]results.Stop, error) {
	path := filepath.Join(dir, CallsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agenttools: %w", err)
	}
	defer f.Close()
	var out []results.Stop
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var r stepRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("agenttools: %s line %d: %w", path, n, err)
		}
		if r.Call == nil || !r.Call.Refused || r.Proposal == nil {
			continue
		}
		t := results.Attempt{Action: string(r.Proposal.Kind), Page: results.PagePath(r.Page)}
		if r.Target != nil {
			t.Role, t.Name = r.Target.Role, r.Target.Name
		}
		if u, err := url.Parse(r.Proposal.URL); err == nil && u.Host != "" { // a goto: the request it was
			t.Host, t.Path = u.Host, u.Path
			if t.Path == "" {
				t.Path = "/"
			}
		}
		out = append(out, results.Stop{Rule: policy.RuleToolRefused, Layer: policy.LayerTool, Attempt: true, Target: t, At: r.At})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("agenttools: %s: %w", path, err)
	}
	return out, nil
}
