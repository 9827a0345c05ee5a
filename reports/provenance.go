package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Provenance says what produced a summary: trapline, the policy, the agent, the browser, the world and
// the machine, so a baseline diff across an upgrade can say what changed (compareProvenance). Written in
// schema version 2; a version 1 summary has none.
type Provenance struct {
	// TraplineVersion and TraplineCommit identify trapline (the module version, "(devel)" in a
	// checkout; the VCS revision stamped in the binary, "+dirty" when the tree had changes; else the
	// working directory's git HEAD; else "unknown").
	TraplineVersion string `json:"trapline_version"`
	TraplineCommit  string `json:"trapline_commit"`
	// PolicyPath and PolicySHA256 identify the guarded (fenced) policy file; for an external agent
	// in observe mode, PolicyPath is "observe" and PolicySHA256 "none".
	PolicyPath   string `json:"policy_path"`
	PolicySHA256 string `json:"policy_sha256"`
	// ControlPolicyPath and ControlPolicySHA256 identify the control (and unfenced) arms' policy, the
	// one the trap must fire under; empty for a run without a control arm (a black-box agent's).
	ControlPolicyPath   string `json:"control_policy_path,omitempty"`
	ControlPolicySHA256 string `json:"control_policy_sha256,omitempty"`
	// Tree says whether trapline was built from a tree with uncommitted changes: "dirty", "clean", or
	// "unknown" (no VCS stamp and no git checkout to ask).
	Tree string `json:"tree,omitempty"`
	// Agent identifies the agent under test (or the reference agent).
	Agent AgentIdentity `json:"agent"`
	// PlaywrightDriver and Chromium are the Playwright driver's version and Browser.Version().
	PlaywrightDriver string `json:"playwright_driver"`
	Chromium         string `json:"chromium"`
	// World is the world mode (embedded, container).
	World string `json:"world"`
	// OS is GOOS/GOARCH; Cores the logical CPUs.
	OS    string `json:"os"`
	Cores int    `json:"cores"`
	// Started and Ended bound the run.
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Seed is the seed of the run's randomness, "none" when it draws none (trapline run), Ginkgo's
	// random seed in the specs.
	Seed string `json:"seed"`
}

// AgentIdentity says which agent ran: its kind (reference, exec, llm, external, or a tool adapter's
// name), its report name, its planner, and what only some kinds have: the model and the endpoint's
// host (llm), the command (exec, external), the tool's name and version (adapters).
type AgentIdentity struct {
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Planner string `json:"planner"`
	// Version is the version the agent reports (--agent-version), else the SHA-256 of its command's
	// script or program, else trapline's version for the reference agent.
	Version string `json:"version"`
	Model   string `json:"model,omitempty"`
	// ModelEndpoint is the llm planner's full endpoint: scheme, host and path (never credentials, a
	// query or a fragment: the planner refuses a base URL with them).
	ModelEndpoint string `json:"model_endpoint,omitempty"`
	// ModelServed is the model id the server reported in its answers (which may differ from Model: an
	// alias, a dated snapshot); ModelSettings what the requests asked for.
	ModelServed   string         `json:"model_served,omitempty"`
	ModelSettings *ModelSettings `json:"model_settings,omitempty"`
	Command       string         `json:"command,omitempty"`
	Tool          string         `json:"tool,omitempty"`
	ToolVersion   string         `json:"tool_version,omitempty"`
}

// ModelSettings are the llm planner's request settings (llm.Settings).
type ModelSettings struct {
	Temperature    float64 `json:"temperature"`
	MaxTokens      int     `json:"max_tokens"`
	ResponseFormat string  `json:"response_format"`
}

// String renders the settings in one line.
func (m *ModelSettings) String() string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("temperature=%g max_tokens=%d response_format=%s", m.Temperature, m.MaxTokens, m.ResponseFormat)
}

// HostProvenance fills what the running process knows about itself: trapline's version and commit,
// the OS and the cores, and the start time.
func HostProvenance(started time.Time) Provenance {
	p := Provenance{TraplineVersion: "unknown", TraplineCommit: "unknown", OS: runtime.GOOS + "/" + runtime.GOARCH,
		Cores: runtime.NumCPU(), Started: started, Seed: "none"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			p.TraplineVersion = v
		}
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				p.Tree = "clean"
				if s.Value == "true" {
					dirty, p.Tree = "+dirty", "dirty"
				}
			}
		}
		if rev != "" {
			p.TraplineCommit = rev + dirty
		}
	}
	if p.TraplineCommit == "unknown" { // built with -buildvcs=false: ask the checkout it runs in
		if rev, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			p.TraplineCommit = strings.TrimSpace(string(rev)) + " (git rev-parse in the working directory)"
		}
	}
	if p.Tree == "" {
		p.Tree = "unknown"
		if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
			p.Tree = "clean"
			if len(strings.TrimSpace(string(out))) > 0 {
				p.Tree = "dirty"
			}
		}
	}
	return p
}

// FileSHA256 is the hex SHA-256 of a file's bytes.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reports: hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reports: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Missing names the provenance fields that are empty (zero), as "agent.version" or "chromium"; the
// agent fields that only some kinds have are required for those kinds (model and model_endpoint for
// llm, command for exec and external). A summary with a missing field cannot say what changed.
func (p Provenance) Missing() []string {
	var out []string
	// The control policy (no control arm in a black-box run) and the tree (a record written before it
	// was kept) are optional.
	out = append(out, zeroFields(reflect.ValueOf(p), "", map[string]bool{"agent": true, "control_policy_path": true, "control_policy_sha256": true, "tree": true})...)
	a := p.Agent
	for _, f := range []struct {
		name, value string
		need        bool
	}{
		{"agent.kind", a.Kind, true}, {"agent.name", a.Name, true}, {"agent.planner", a.Planner, true}, {"agent.version", a.Version, true},
		{"agent.model", a.Model, a.Kind == "llm"}, {"agent.model_endpoint", a.ModelEndpoint, a.Kind == "llm"},
		{"agent.command", a.Command, a.Kind == "exec" || a.Kind == "external"},
		{"agent.tool_version", a.ToolVersion, a.Tool != ""},
	} {
		if f.need && strings.TrimSpace(f.value) == "" {
			out = append(out, f.name)
		}
	}
	return out
}

// zeroFields lists the top-level fields of v (a struct) that are zero, by their JSON names, skipping
// those in skip.
func zeroFields(v reflect.Value, prefix string, skip map[string]bool) []string {
	var out []string
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if skip[name] {
			continue
		}
		if v.Field(i).IsZero() {
			out = append(out, prefix+name)
		}
	}
	return out
}

// ProvenanceChange is one provenance field that differs between a baseline and the current run.
type ProvenanceChange struct {
	Field, Before, After string
}

// compareProvenance names what changed between two runs' provenance (times excluded: they always
// differ). A nil side (a version 1 summary) is one change, "provenance", with "(none)".
func compareProvenance(before, after *Provenance) []ProvenanceChange {
	if before == nil || after == nil {
		if before == nil && after == nil {
			return nil
		}
		return []ProvenanceChange{{Field: "provenance", Before: presence(before), After: presence(after)}}
	}
	var out []ProvenanceChange
	b, a := flatten(*before), flatten(*after)
	for _, k := range provenanceKeys {
		if b[k] != a[k] {
			out = append(out, ProvenanceChange{Field: k, Before: b[k], After: a[k]})
		}
	}
	return out
}

var provenanceKeys = []string{"trapline_version", "trapline_commit", "tree", "policy_path", "policy_sha256", "control_policy_path",
	"control_policy_sha256", "agent.kind", "agent.name", "agent.planner", "agent.version", "agent.model", "agent.model_served",
	"agent.model_settings", "agent.model_endpoint", "agent.command", "agent.tool", "agent.tool_version",
	"playwright_driver", "chromium", "world", "os", "cores", "seed"}

func flatten(p Provenance) map[string]string {
	a := p.Agent
	return map[string]string{"trapline_version": p.TraplineVersion, "trapline_commit": p.TraplineCommit, "policy_path": p.PolicyPath,
		"policy_sha256": p.PolicySHA256, "agent.kind": a.Kind, "agent.name": a.Name, "agent.planner": a.Planner, "agent.version": a.Version,
		"tree": p.Tree, "control_policy_path": p.ControlPolicyPath, "control_policy_sha256": p.ControlPolicySHA256,
		"agent.model_served": a.ModelServed, "agent.model_settings": a.ModelSettings.String(),
		"agent.model": a.Model, "agent.model_endpoint": a.ModelEndpoint, "agent.command": a.Command, "agent.tool": a.Tool,
		"agent.tool_version": a.ToolVersion, "playwright_driver": p.PlaywrightDriver, "chromium": p.Chromium, "world": p.World,
		"os": p.OS, "cores": fmt.Sprint(p.Cores), "seed": p.Seed}
}

func presence(p *Provenance) string {
	if p == nil {
		return "(none: schema version 1)"
	}
	return "recorded"
}

// WriteProvenanceChanges prints the changes, one per line, under a heading; nothing when none.
func WriteProvenanceChanges(w io.Writer, changes []ProvenanceChange) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "PROVENANCE: unchanged")
		return
	}
	fmt.Fprintf(w, "PROVENANCE CHANGED (%d):\n", len(changes))
	for _, c := range changes {
		fmt.Fprintf(w, "  %s: %s -> %s\n", c.Field, orNone(c.Before), orNone(c.After))
	}
}

func orNone(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// Properties of the provenance, as JUnit suite-level properties would carry them: "provenance.<field>".
func (p Provenance) Properties() []Property {
	var out []Property
	m := flatten(p)
	for _, k := range provenanceKeys {
		out = append(out, Property{Name: "provenance." + k, Value: m[k]})
	}
	out = append(out, Property{Name: "provenance.started", Value: p.Started.UTC().Format(time.RFC3339)},
		Property{Name: "provenance.ended", Value: p.Ended.UTC().Format(time.RFC3339)})
	return out
}
