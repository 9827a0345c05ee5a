package ci

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/internal/agenttools"
)

const trapsWorkflow = "../.github/workflows/traps.yml"

// shard is one entry of the workflow's PR_SHARDS.
type shard struct {
	Label string `json:"label"`
	Name  string `json:"name"`
}

// workflow is the part of a GitHub workflow this test reads.
type workflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		If       string `yaml:"if"`
		Needs    any    `yaml:"needs"`
		Strategy struct {
			Matrix map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Name string            `yaml:"name"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]any    `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	b, err := os.ReadFile(trapsWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("parse %s: %v", trapsWorkflow, err)
	}
	return w
}

// prShards returns the shards the plan job gives pull requests (PR_SHARDS of the step with id shards).
func prShards(t *testing.T, w workflow) []shard {
	t.Helper()
	for _, st := range w.Jobs["plan"].Steps {
		if st.ID != "shards" {
			continue
		}
		raw, ok := st.Env["PR_SHARDS"]
		if !ok {
			t.Fatalf("%s: jobs.plan step shards has no env PR_SHARDS", trapsWorkflow)
		}
		var out []shard
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatalf("%s: jobs.plan step shards env PR_SHARDS is not a JSON list of {label,name}: %v", trapsWorkflow, err)
		}
		if len(out) == 0 {
			t.Fatalf("%s: PR_SHARDS is empty", trapsWorkflow)
		}
		return out
	}
	t.Fatalf("%s: jobs.plan has no step with id shards", trapsWorkflow)
	return nil
}

func TestWorkflowsLintClean(t *testing.T) {
	files, err := filepath.Glob("../.github/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflow found (%v)", err)
	}
	var out strings.Builder
	// Shellcheck and pyflakes only when installed (actionlint skips them when the names are empty).
	opts := &actionlint.LinterOptions{Oneline: true, Color: actionlint.ColorOptionKindNever}
	if p, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = p
	}
	l, err := actionlint.NewLinter(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

// TestPRJobsRunTheWholeSuite: the pull-request trigger starts the shards and the gate; the traps job's
// matrix is the plan's output; the gate merges and gates every shard.
func TestPRJobsRunTheWholeSuite(t *testing.T) {
	w := readWorkflow(t)
	if _, ok := w.On["pull_request"]; !ok {
		t.Fatalf("%s: no pull_request trigger", trapsWorkflow)
	}
	traps, ok := w.Jobs["traps"]
	if !ok {
		t.Fatalf("%s: no traps job", trapsWorkflow)
	}
	if traps.If != "" {
		t.Errorf("jobs.traps has an if (%q): it must run on every pull request", traps.If)
	}
	if m, _ := traps.Strategy.Matrix["shard"].(string); !strings.Contains(m, "needs.plan.outputs.shards") {
		t.Errorf("jobs.traps matrix.shard = %q, want the plan job's shards", m)
	}
	ran := false
	for _, st := range traps.Steps {
		if strings.Contains(st.Run, "make demo") && strings.Contains(st.Run, `LABELS="$LABELS"`) && st.Env["LABELS"] == "${{ matrix.shard.label }}" {
			ran = true
		}
	}
	if !ran {
		t.Errorf("jobs.traps has no step running make demo with the shard's label filter")
	}
	checkGate(t, w, "gate", "traps", "")
}

// checkGate: job gate runs after the plan and every shard of job shards whatever their outcome (if
// always(), with cond besides when not empty), and merges every planned shard, then gates the merge.
func checkGate(t *testing.T, w workflow, gate, shards, cond string) {
	t.Helper()
	g, ok := w.Jobs[gate]
	if !ok {
		t.Fatalf("%s: no %s job", trapsWorkflow, gate)
	}
	needs := fmt.Sprint(g.Needs)
	want := "always()"
	if cond != "" {
		want = "always() && (" + cond + ")"
	}
	if g.If != want || !strings.Contains(needs, shards) || !strings.Contains(needs, "plan") {
		t.Errorf("jobs.%s: if %q needs %v, want %q and [plan %s] (it must gate failed shards too)", gate, g.If, g.Needs, want, shards)
	}
	var merges, gates bool
	for _, st := range g.Steps {
		// The merge names every planned shard, so a shard that never uploaded is refused.
		merges = merges || strings.Contains(st.Run, "report --merge") && strings.Contains(st.Env["SHARDS"], "needs.plan.outputs.shards")
		gates = gates || (strings.Contains(st.Run, "cmd/trapline report") && strings.Contains(st.Run, "exit $code"))
	}
	if !merges || !gates {
		t.Errorf("jobs.%s: merges %v, gates %v; want both", gate, merges, gates)
	}
	// The merge reads the folders the shards uploaded: <artifact prefix><shard name>.
	prefix := ""
	for _, st := range w.Jobs[shards].Steps {
		if n, _ := st.With["name"].(string); strings.HasSuffix(n, "${{ matrix.shard.name }}") {
			prefix = strings.TrimSuffix(n, "${{ matrix.shard.name }}")
		}
	}
	found := false
	for _, st := range g.Steps {
		found = found || prefix != "" && strings.Contains(st.Run, "report --merge") && strings.Contains(st.Run, "/"+prefix+"$name")
	}
	if !found {
		t.Errorf("jobs.%s: the merge does not read the folders jobs.%s uploads (artifact prefix %q)", gate, shards, prefix)
	}
}

// TestContainerShardsMergedAndGated: the traps-container job runs the plan's shards (so the coverage
// test below covers it as well: the same filters) and one gate-container job merges and gates them,
// under the same condition as the shards (push, dispatch, or a pull request labelled container-world).
func TestContainerShardsMergedAndGated(t *testing.T) {
	w := readWorkflow(t)
	ctr, ok := w.Jobs["traps-container"]
	if !ok {
		t.Fatalf("%s: no traps-container job", trapsWorkflow)
	}
	if m, _ := ctr.Strategy.Matrix["shard"].(string); !strings.Contains(m, "needs.plan.outputs.shards") {
		t.Errorf("jobs.traps-container matrix.shard = %q, want the plan job's shards", m)
	}
	if ctr.If == "" {
		t.Fatalf("jobs.traps-container has no if: it would run on every pull request")
	}
	ran, leftovers := false, false
	for _, st := range ctr.Steps {
		ran = ran || strings.Contains(st.Run, "TRAPLINE_WORLD=container") && strings.Contains(st.Run, `LABELS="$LABELS"`) && st.Env["LABELS"] == "${{ matrix.shard.label }}"
		leftovers = leftovers || strings.Contains(st.Run, "make check-leftovers")
	}
	if !ran || !leftovers {
		t.Errorf("jobs.traps-container: runs the shard's filter in containers %v, checks leftovers %v; want both", ran, leftovers)
	}
	checkGate(t, w, "gate-container", "traps-container", ctr.If)
}

// TestPRShardsSelectEverySpecOnce: every spec `make test` runs (its specs target has no label filter:
// all of them, as `ginkgo --dry-run` lists them with their labels) matches exactly one PR shard's filter.
func TestPRShardsSelectEverySpecOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and dry-runs the specs")
	}
	w := readWorkflow(t)
	shards := prShards(t, w)
	var filters []types.LabelFilter
	for _, s := range shards {
		f, err := types.ParseLabelFilter(s.Label)
		if err != nil {
			t.Fatalf("%s: PR shard %s: label filter %q: %v", trapsWorkflow, s.Name, s.Label, err)
		}
		filters = append(filters, f)
	}
	specs := dryRunSpecs(t)
	if len(specs) < 100 {
		t.Fatalf("the dry run listed %d specs; expected the whole suite (over 100)", len(specs))
	}
	for _, sp := range specs {
		var in []string
		for i, f := range filters {
			if f(sp.labels) {
				in = append(in, shards[i].Name)
			}
		}
		switch len(in) {
		case 1:
		case 0:
			t.Errorf("no PR shard selects %q (labels %v)", sp.name, sp.labels)
		default:
			t.Errorf("PR shards %v all select %q (labels %v): the merge refuses an arm run twice", in, sp.name, sp.labels)
		}
	}
	t.Logf("%d specs, %d PR shards", len(specs), len(shards))
}

// TestMakeTestRunsSpecsUnfiltered: the premise of the test above, that `make test` runs every spec.
func TestMakeTestRunsSpecsUnfiltered(t *testing.T) {
	b, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mk := string(b)
	if !strings.Contains(mk, "for part in unit specs examples; do") || !strings.Contains(mk, "LABELS     ?=\n") ||
		!strings.Contains(mk, "$(GINKGO) --procs=$(PROCS) $(LABEL_ARG) --junit-report=junit.xml --output-dir=$(OUT) ./specs") {
		t.Fatal("Makefile: `make test` no longer runs `specs` with an empty default label filter; update this test and PR_SHARDS")
	}
}

type spec struct {
	name   string
	labels []string
}

// dryRunSpecs builds the specs and lists every It with its labels (containers' and its own), from
// Ginkgo's JSON report of a dry run (no spec body, no set-up node runs).
func dryRunSpecs(t *testing.T) []spec {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "specs.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "../specs")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c ../specs: %v\n%s", err, out)
	}
	report := filepath.Join(dir, "dry.json")
	run := exec.Command(bin, "-ginkgo.dry-run", "-ginkgo.json-report="+report)
	run.Dir = "../specs"
	// The full matrices (what the pull-request shards run, and more): make test's samples are part of them.
	run.Env = append(os.Environ(), "TRAPLINE_OUT="+filepath.Join(dir, "out"), "TRAPLINE_AGENT_TOOLS=full", "TRAPLINE_EXTERNAL=full", "TRAPLINE_LLM_CATALOG=full", "TRAPLINE_AGENT_FRAMEWORKS=full")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("dry run of the specs: %v\n%s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var reps []types.Report
	if err := json.Unmarshal(b, &reps); err != nil {
		t.Fatalf("%s: %v", report, err)
	}
	var out []spec
	for _, r := range reps {
		for _, sr := range r.SpecReports {
			if sr.LeafNodeType != types.NodeTypeIt {
				continue
			}
			out = append(out, spec{sr.FullText(), sr.Labels()})
		}
	}
	return out
}

// TestMatrixJobsNameEveryTool: matrices.yml's agent-tools job runs make agent-tools-matrix once per
// tool of internal/agenttools.Configs (its matrix names each, and nothing else), so a new tool's full
// matrix is not left out of CI.
func TestMatrixJobsNameEveryTool(t *testing.T) {
	const file = "../.github/workflows/matrices.yml"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	job, ok := w.Jobs["agent-tools-matrix"]
	if !ok {
		t.Fatalf("%s: no agent-tools-matrix job", file)
	}
	var got []string
	list, _ := job.Strategy.Matrix["tool"].([]any)
	for _, v := range list {
		got = append(got, fmt.Sprint(v))
	}
	var want []string
	for _, c := range agenttools.Configs(filepath.Join("..", agenttools.ToolsDir)) {
		if !slices.Contains(want, c.Tool) {
			want = append(want, c.Tool)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: jobs.agent-tools-matrix matrix.tool = %v, want the tools %v", file, got, want)
	}
	ran := false
	for _, st := range job.Steps {
		ran = ran || strings.Contains(st.Run, "make agent-tools-matrix") && strings.Contains(st.Run, `LABELS="tool:$TOOL"`) && st.Env["TOOL"] == "${{ matrix.tool }}"
	}
	if !ran {
		t.Errorf("%s: jobs.agent-tools-matrix has no step running make agent-tools-matrix for its tool", file)
	}
}
