package reports

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/results"
)

//go:embed report.html.tmpl
var htmlTemplate string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"upper": func(v string) string {
		if v == "" {
			return "-"
		}
		return strings.ToUpper(v)
	},
	"changes": func(title string, list []Change) changeList { return changeList{title, list} },
}).Parse(htmlTemplate))

type changeList struct {
	Title string
	List  []Change
}

// Names of the files the HTML report reads in each evidence folder: the evidence package's, the one
// place they are defined.
const (
	ActionsFile    = evidence.ActionsFile
	ViolationsFile = evidence.ViolationsFile
	TraceFile      = evidence.TraceFile
)

// HTMLOptions configures WriteHTML.
type HTMLOptions struct {
	// Title heads the page; default "trapline report".
	Title string
	// SummaryDir is the folder of the summary file. When an entry's evidence path does not exist (the
	// summary was made on another machine, e.g. a CI artifact), the report looks for
	// SummaryDir/evidence/<trap>/<arm>.
	SummaryDir string
	// ReportDir is the folder the page is written to: video links are relative to it. Default:
	// SummaryDir (WriteHTMLFile sets it to its file's folder).
	ReportDir string
	// Comparison, when set, adds the baseline comparison to the page.
	Comparison *Comparison
	// Mutation, when set, adds the mutation-testing section (trapline mutate's result).
	Mutation *Mutation
	// MaxScreenshots bounds the screenshots embedded per arm (the rest are listed by path); default 20.
	MaxScreenshots int
	// Provenance adds rows (name, value) to the provenance header: the policy hash, the commit, the
	// shards a merge came from.
	Provenance [][2]string
}

// WriteHTMLFile writes the HTML report of s to path (see WriteHTML), creating the folder.
func WriteHTMLFile(path string, s Summary, o HTMLOptions) error {
	if o.ReportDir == "" {
		o.ReportDir = filepath.Dir(path)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, o); err != nil {
		return err
	}
	return writeFile(path, b.Bytes())
}

// WriteHTML writes one self-contained HTML page for s: inline CSS, screenshots embedded as data: URIs,
// no script and no reference to anything outside the file. It holds a verdict matrix (traps × arms, in
// colour and in words) and, per trap, the incident it models, the task, and per arm the verdict, the
// expected and fired guards, the forbidden effects, the action timeline from actions.jsonl, the
// screenshot at each violation and the trace with the command that opens it. Missing evidence files
// are noted on the page, not fatal.
func WriteHTML(w io.Writer, s Summary, o HTMLOptions) error {
	if o.Title == "" {
		o.Title = "trapline report"
	}
	if o.MaxScreenshots == 0 {
		o.MaxScreenshots = 20
	}
	v := buildView(s, o)
	if o.Mutation != nil {
		sec, err := MutationSection(*o.Mutation)
		if err != nil {
			return err
		}
		v.Mutation = sec
	}
	if err := reportTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("reports: render HTML: %w", err)
	}
	return nil
}

type htmlView struct {
	Title                  string
	Generated              string
	Passed, Failed, Broken int
	Arms                   []string
	Matrix                 []matrixRow
	Traps                  []trapView
	Comparison             *Comparison
	Mutation               template.HTML
	Provenance             [][2]string
	Filters                []filterGroup
	FilterCSS              template.CSS
	// Utility is one line per agent under test (UtilityOf).
	Utility []string
	// Gate is the page's verdict in one word and a line; Failures the arms that block or are known to
	// fail, worst first: what a reviewer reads before anything else.
	Gate     gateView
	Failures []failureView
}

type gateView struct{ Word, Class, Text string }

// failureView is one arm in the page's opening list: where it stands for the gate and why.
type failureView struct {
	Anchor, Label, Standing, Class, Message string
}

type matrixRow struct {
	Trap, Category string
	Cells          []cellView
	Facets         facets
}

type cellView struct {
	Arm, Class, Text, Anchor string
	Facets                   facets
	Ran                      bool
}

type trapView struct {
	ID, Category, Incident, Task string
	Arms                         []armView
	Facets                       facets
}

type armView struct {
	Facets                    facets
	Anchor, Arm, Class, Text  string
	Why, Failure, Outcome     string
	ExpectedGuards            string
	GuardsFired               string
	Effects                   []string
	Probes                    []string
	UnmatchedForbidden        []string
	AppWrites                 []string
	CanaryHits, ProxyDenied   int
	Seconds                   float64
	Evidence                  string
	Reused                    string // reusedLabel: the run that made a reused proof, and when
	Notes                     []string
	Timeline                  []stepView
	Violations                []violationView
	Traces                    []traceView
	Videos                    []videoView
	ScreenshotsNotEmbedded    []string
	HasTimeline, HasViolation bool
}

// traceView is one trace.zip of an arm (one per trial of a repeated arm, Label "trial N").
type traceView struct {
	Label, Path, Command string
}

type stepView struct {
	Seq                                int
	Page, Proposal, Target             string
	Allowed                            bool
	Rule, DecisionReason               string
	Delivery, Verification, Error, Row string
}

type violationView struct {
	Seq                                       int
	Source, Rule, Reason, Taken, Where, Label string
	Image                                     template.URL
	ImageName                                 string
}

func verdictClass(v string) (class, text string) {
	switch v {
	case StatusPass:
		return "pass", "PASS"
	case StatusFail:
		return "fail", "FAIL"
	case StatusBroken:
		return "broken", "BROKEN"
	case "":
		return "none", "NOT RUN"
	}
	return "fail", strings.ToUpper(v)
}

// anchor is the id of a trap's arm on the page; column is ArmLabel (the arm, then the agent under test).
func anchor(trap, column string) string {
	return "arm-" + trap + "-" + strings.ReplaceAll(column, "/", "-")
}

func buildView(s Summary, o HTMLOptions) htmlView {
	v := htmlView{Title: o.Title, Passed: s.Passed, Failed: s.Failed, Broken: s.Broken, Comparison: o.Comparison,
		Arms: []string{"guarded", "control"}}
	if !s.Generated.IsZero() {
		v.Generated = s.Generated.UTC().Format(time.RFC3339)
	}
	fi := newFilterIndex(s)
	v.Filters, v.FilterCSS = fi.groups(), fi.css()
	v.Provenance = recordedRows(provenanceRows(s, o), s.Provenance)
	v.Gate, v.Failures = gateOf(s, o.Comparison)
	for _, u := range s.Utility {
		v.Utility = append(v.Utility, u.Label()+": "+u.String())
	}
	byTrap := map[string][]Entry{}
	var traps []string
	for _, e := range s.Entries {
		if _, ok := byTrap[e.Trap]; !ok {
			traps = append(traps, e.Trap)
		}
		byTrap[e.Trap] = append(byTrap[e.Trap], e)
		if col := ArmLabel(e); !slices.Contains(v.Arms, col) {
			v.Arms = append(v.Arms, col)
		}
	}
	for _, id := range traps {
		entries := byTrap[id]
		row := matrixRow{Trap: id, Category: entries[0].Category, Facets: fi.of(entries[0])}
		tv := trapView{ID: id, Category: entries[0].Category, Facets: fi.of(entries[0])}
		for _, arm := range v.Arms {
			i := slices.IndexFunc(entries, func(e Entry) bool { return ArmLabel(e) == arm })
			if i < 0 {
				class, text := verdictClass("")
				row.Cells = append(row.Cells, cellView{Arm: arm, Class: class, Text: text})
				continue
			}
			e := entries[i]
			if tv.Incident == "" {
				tv.Incident, tv.Task = e.Incident, e.Task
			}
			class, text := verdictClass(e.Status)
			row.Cells = append(row.Cells, cellView{Arm: arm, Class: class, Text: text, Anchor: anchor(id, arm), Facets: fi.of(e), Ran: true})
			av := buildArm(e, o)
			av.Facets = fi.of(e)
			tv.Arms = append(tv.Arms, av)
		}
		v.Matrix = append(v.Matrix, row)
		v.Traps = append(v.Traps, tv)
	}
	return v
}

// locate finds the evidence folder of e: its recorded path, or SummaryDir/evidence/<trap>/<arm> (for
// an agent under test, <arm>-<agent>).
func locate(e Entry, summaryDir string) (string, bool) {
	candidates := []string{e.Evidence}
	if summaryDir != "" {
		candidates = append(candidates, results.EvidencePath(filepath.Join(summaryDir, "evidence"), e.Trap, results.Arm(e.Arm), AgentName(e.Agent)))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c, true
		}
	}
	return e.Evidence, false
}

func buildArm(e Entry, o HTMLOptions) armView {
	class, text := verdictClass(e.Status)
	a := armView{Anchor: anchor(e.Trap, ArmLabel(e)), Arm: ArmLabel(e), Class: class, Text: text, Why: e.Why, Failure: FailureMessage(e),
		Outcome: e.Outcome, ExpectedGuards: policy.JoinRules(e.ExpectedGuards, ", "), GuardsFired: policy.JoinRules(e.GuardsFired, ", "),
		Effects: e.Effects, CanaryHits: e.CanaryHits, ProxyDenied: e.ProxyDenied, Seconds: e.Seconds, Reused: reusedLabel(e),
		UnmatchedForbidden: e.UnmatchedForbidden, AppWrites: e.AppWrites}
	for _, p := range e.Probes {
		a.Probes = append(a.Probes, p.String()+" from "+p.Source)
	}
	dir, found := locate(e, o.SummaryDir)
	a.Evidence = relative(dir)
	if !found {
		a.Notes = append(a.Notes, "evidence folder not found: "+dir)
		return a
	}
	runs, worst := armRuns(e, dir)
	dir = runs[worst].dir
	if len(e.Trials) > 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("%d trials: the timeline and violations below are trial %d's (the worst); each trial's trace and video are listed", len(runs), e.Trials[worst].N))
	}
	if e.Arm == string(results.Blackbox) {
		// An agent trapline did not write leaves no action log or trace of trapline's: it is judged by
		// the outside observers alone, and what it says about itself is in its own output.
		a.Notes = append(a.Notes, "black-box run: judged only by the outside observers (backend, canaries, proxy log, download folder); "+
			"the agent's own output, information only: "+filepath.Join(relative(dir), "agent", results.StdoutFile))
		return a
	}
	actions, err := evidence.ReadActions(filepath.Join(dir, ActionsFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		a.Notes = append(a.Notes, "no "+ActionsFile+" in the evidence folder")
	case err != nil:
		a.Notes = append(a.Notes, err.Error())
	}
	for _, r := range actions {
		a.Timeline = append(a.Timeline, step(r))
	}
	a.HasTimeline = len(a.Timeline) > 0
	violations, err := evidence.ReadViolations(filepath.Join(dir, ViolationsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		a.Notes = append(a.Notes, err.Error())
	}
	embedded := 0
	for i, vr := range violations {
		vv := violationView{Seq: vr.Seq, Source: vr.Source.String(), Rule: vr.Rule.String(), Reason: vr.Reason, Taken: string(vr.Taken), Where: vr.Page}
		if vr.URL != "" {
			vv.Where = strings.TrimSpace(vr.Method + " " + vr.URL)
		}
		if vv.Seq == 0 {
			vv.Seq = i + 1
		}
		if vr.Target != nil {
			vv.Label = fmt.Sprintf("%s %q", vr.Target.Role, vr.Target.Name)
		}
		if vr.Screenshot != "" {
			vv.ImageName = filepath.Base(vr.Screenshot)
			if embedded >= o.MaxScreenshots {
				a.ScreenshotsNotEmbedded = append(a.ScreenshotsNotEmbedded, filepath.Join(relative(dir), vv.ImageName))
			} else if uri, err := pngDataURI(filepath.Join(dir, vv.ImageName)); err != nil {
				a.Notes = append(a.Notes, err.Error())
			} else {
				vv.Image = uri
				embedded++
			}
		}
		a.Violations = append(a.Violations, vv)
	}
	a.HasViolation = len(a.Violations) > 0
	pageDir := o.ReportDir
	if pageDir == "" {
		pageDir = o.SummaryDir
	}
	armMedia(&a, runs, pageDir)
	return a
}

// runDir is one run's evidence folder of an arm: the arm's own, or a repeated arm's trial's (label
// "trial N").
type runDir struct{ label, dir string }

// armRuns are the evidence folders of an arm's runs: its own, or for a repeated arm each trial's
// (trial-N), and the index of the one whose timeline the page shows: the worst trial's (the one the
// entry's verdict is).
func armRuns(e Entry, dir string) (runs []runDir, worst int) {
	if len(e.Trials) == 0 {
		return []runDir{{dir: dir}}, 0
	}
	rank := func(t Trial) int {
		return trialRank(Entry{Status: t.Status, Result: t.Result, Attribution: t.Attribution})
	}
	for i, t := range e.Trials {
		runs = append(runs, runDir{label: fmt.Sprintf("trial %d", t.N), dir: trialFolder(t, dir)})
		if rank(t) > rank(e.Trials[worst]) {
			worst = i
		}
	}
	return runs, worst
}

// trialFolder is a trial's evidence folder: the recorded one, else armDir/trial-N (a summary made on
// another machine).
func trialFolder(t Trial, armDir string) string {
	if fi, err := os.Stat(t.Evidence); t.Evidence != "" && err == nil && fi.IsDir() {
		return t.Evidence
	}
	return filepath.Join(armDir, fmt.Sprintf("trial-%d", t.N))
}

// armMedia lists each run's trace (with the command that opens it) and video segments, and notes the
// runs that were not traced.
func armMedia(a *armView, runs []runDir, pageDir string) {
	var untraced []string
	for _, r := range runs {
		a.Videos = append(a.Videos, videoViews(r.dir, pageDir)...)
		trace := filepath.Join(r.dir, TraceFile)
		if !fileExists(trace) {
			untraced = append(untraced, r.label)
			continue
		}
		p := relative(trace)
		a.Traces = append(a.Traces, traceView{Label: r.label, Path: p, Command: "npx playwright show-trace " + shellQuote(p)})
	}
	switch {
	case len(untraced) == 0:
	case len(runs) == 1:
		a.Notes = append(a.Notes, "no "+TraceFile+" (the run was not traced)")
	default:
		a.Notes = append(a.Notes, fmt.Sprintf("no %s in %s of %d trials (not traced): %s", TraceFile, fmt.Sprint(len(untraced)), len(runs), strings.Join(untraced, ", ")))
	}
}

func step(r evidence.ActionRecord) stepView {
	p := string(r.Proposal.Kind)
	for _, part := range []string{r.Proposal.URL, quoteIf(r.Proposal.Value), r.Proposal.Key, r.Proposal.Dir} {
		if part != "" {
			p += " " + part
		}
	}
	s := stepView{Seq: r.Seq, Page: r.Page, Proposal: p, Allowed: r.Decision.Allow, Rule: r.Decision.Rule.String(),
		DecisionReason: r.Decision.Reason, Delivery: string(r.Delivery), Verification: r.Verification, Error: r.Error, Row: "allowed"}
	if r.Target != nil {
		s.Target = fmt.Sprintf("%s %q", r.Target.Role, r.Target.Name)
		if r.Target.Href != "" {
			s.Target += " → " + r.Target.Href
		}
	}
	if !r.Decision.Allow {
		s.Row = "denied"
	}
	if s.Delivery == "" {
		s.Delivery = "-"
	}
	return s
}

func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// pngDataURI embeds a PNG file as a data: URI. Only real PNG bytes are accepted, which is what makes
// the template.URL safe.
func pngDataURI(path string) (template.URL, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reports: screenshot: %w", err)
	}
	if !bytes.HasPrefix(b, pngMagic) {
		return "", fmt.Errorf("reports: screenshot %s is not a PNG", path)
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b)), nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
