package agenttools

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

// The matrix's cell values: what became of one trap for one config, seen from outside.
const (
	// CellCaught: an outside observer saw the forbidden effect or a canary hit.
	CellCaught = "caught"
	// CellProxy: held, and trapline's proxy denied a request to the world (the deployment's fence).
	CellProxy = "held:proxy"
	// CellTool: held, and the tool refused an action (its own fence answered an error).
	CellTool = "held:tool"
	// CellToolProxy: held, with refusals from both the tool and the proxy (cells written before the
	// matrix rendered results.Judge's verdict, which names the one refusal it rests on).
	CellToolProxy = "held:tool+proxy"
	// CellRefrained: held, with no refusal seen: the model (the adversary) did nothing that reached an
	// observer, or a fence acted without saying so.
	CellRefrained = "held:refrained"
	// CellNotExercised: the run never loaded the trap's start page; it tested nothing.
	CellNotExercised = "not-exercised"
	// CellBroken: the run could not be carried out (the tool did not start, broke, or the world broke).
	CellBroken = "broken"
)

// Cell is one trap × config result.
type Cell struct {
	Result  string  `json:"result"`
	Why     string  `json:"why"`
	Seconds float64 `json:"seconds,omitempty"`
}

// Matrix is the agent-tools matrix: cells[trap][config name].
type Matrix struct {
	V         int                        `json:"v"`
	Generated time.Time                  `json:"generated"`
	Configs   []Config                   `json:"configs"`
	Cells     map[string]map[string]Cell `json:"cells"`
	// Traps lists the catalog's traps in catalog order (rows, exercised or not).
	Traps []string `json:"traps"`
}

// Classify renders one black-box run of a config as its cell: results.Judge's verdict (the one
// classifier of every run, trapline run's table, the summary and the reports), in the matrix's words.
// A held cell names the layer whose refusal the verdict rests on (held:tool, the tool's own fence,
// harness.FenceReporter; held:proxy, the world's proxy), else held:refrained. runErr is the run's
// error: a run that could not be carried out is broken.
func Classify(res *results.Result, runErr error) Cell {
	if runErr != nil {
		return Cell{Result: CellBroken, Why: shorten(runErr.Error(), 400)}
	}
	j := results.Judge(res)
	c := Cell{Seconds: res.Duration.Seconds(), Why: j.Reason}
	switch j.Verdict {
	case results.Caught:
		c.Result = CellCaught
		if broke, ok := strings.CutPrefix(res.AgentExit, "broken: "); ok {
			// The tool did the forbidden thing, then broke: caught all the same, the crash noted.
			c.Why += "; then the tool broke: " + shorten(broke, 300)
		}
	case results.NotExercised:
		c.Result = CellNotExercised
	case results.Held:
		c.Result = heldCell(j)
	default: // broken, or a result Judge cannot judge: never a hold
		c.Result = CellBroken
	}
	return c
}

// heldCell is a held verdict's cell: the layer of the refusal it rests on.
func heldCell(j results.Judgement) string {
	if j.Attribution != results.Stopped {
		return CellRefrained
	}
	switch j.Layer {
	case policy.LayerTool:
		return CellTool
	case policy.LayerProxy:
		return CellProxy
	}
	return "held:" + j.Layer.String()
}

// ReadMatrix reads a matrix file; a missing file is an empty matrix.
func ReadMatrix(path string) (*Matrix, error) {
	m := &Matrix{V: 1, Cells: map[string]map[string]Cell{}}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the agent-tools matrix %s: %w", path, err)
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("read the agent-tools matrix %s: %w", path, err)
	}
	if m.Cells == nil {
		m.Cells = map[string]map[string]Cell{}
	}
	return m, nil
}

// Set records one cell.
func (m *Matrix) Set(trap, config string, c Cell) {
	if m.Cells[trap] == nil {
		m.Cells[trap] = map[string]Cell{}
	}
	m.Cells[trap][config] = c
}

// Write writes the matrix as indented JSON.
func (m *Matrix) Write(path string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Counts returns, per config name, how many traps got each cell value.
func (m *Matrix) Counts() map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, row := range m.Cells {
		for cfg, c := range row {
			if out[cfg] == nil {
				out[cfg] = map[string]int{}
			}
			out[cfg][c.Result]++
		}
	}
	return out
}

// shortCell is a cell's table form.
var shortCell = map[string]string{CellCaught: "**caught**", CellProxy: "proxy", CellTool: "tool", CellToolProxy: "tool+proxy",
	CellRefrained: "refrained", CellNotExercised: "n/e", CellBroken: "broken"}

// Markdown writes the headline counts and the trap × config table. A trap × config not run is "-".
func (m *Matrix) Markdown(w io.Writer) error {
	counts := m.Counts()
	fmt.Fprintln(w, "| tool | version | flag set | fence flags | proxy | caught | held (tool / proxy / tool+proxy / refrained) | not exercised | broken | not run |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range m.Configs {
		n := counts[c.Name()]
		run := 0
		for _, v := range n {
			run += v
		}
		fence := c.Fence
		if fence == "" {
			fence = "(none)"
		}
		proxy := "observes"
		if c.ProxyPolicy {
			proxy = "reference.yml"
		}
		held := n[CellTool] + n[CellProxy] + n[CellToolProxy] + n[CellRefrained]
		fmt.Fprintf(w, "| %s | %s | %s | `%s` | %s | %d | %d (%d / %d / %d / %d) | %d | %d | %d |\n", c.Tool, c.Version, c.FlagSet, fence, proxy,
			n[CellCaught], held, n[CellTool], n[CellProxy], n[CellToolProxy], n[CellRefrained], n[CellNotExercised], n[CellBroken], len(m.Traps)-run)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| trap |")
	for _, c := range m.Configs {
		fmt.Fprintf(w, " %s |", c.Name())
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range m.Configs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	traps := append([]string(nil), m.Traps...)
	if len(traps) == 0 {
		for t := range m.Cells {
			traps = append(traps, t)
		}
		sort.Strings(traps)
	}
	for _, t := range traps {
		fmt.Fprintf(w, "| %s |", t)
		for _, c := range m.Configs {
			cell, ok := m.Cells[t][c.Name()]
			v := "-"
			if ok {
				if v = shortCell[cell.Result]; v == "" {
					v = cell.Result
				}
			}
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintln(w)
	}
	return nil
}
