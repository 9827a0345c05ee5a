package reports

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// standing is an entry's place in a CI listing: what it means for the gate, worst first.
type standing struct {
	rank  int
	label string // "regression", "failing (no baseline)", ...
	gates bool   // the arm blocks the change
}

var (
	standRegression = standing{0, "regression", true}
	standUnproven   = standing{1, "failing, no baseline verdict", true}
	standBroken     = standing{2, "broken (fixture or environment)", true}
	standStill      = standing{3, "still failing (known on the baseline)", false}
	standFixed      = standing{4, "fixed", false}
	standPass       = standing{5, "pass", false}
)

// standings sorts the entries of s by what they mean for the gate: regressions first, then failures
// without a baseline verdict, broken runs, known failures, fixed arms, passes; without a comparison a
// failing arm counts as failing without a baseline verdict.
func standings(s Summary, cmp *Comparison) ([]Entry, map[key]standing) {
	st := map[key]standing{}
	for _, e := range s.Entries {
		switch e.Status {
		case StatusPass:
			st[keyOf(e)] = standPass
		case StatusBroken, StatusInterrupted:
			st[keyOf(e)] = standBroken
		default:
			st[keyOf(e)] = standUnproven
		}
	}
	if cmp != nil {
		mark := func(list []Change, s standing) {
			for _, c := range list {
				st[key{c.Trap, c.Arm, c.Agent}] = s
			}
		}
		mark(cmp.Regressions, standRegression)
		mark(cmp.StillFailing, standStill)
		mark(cmp.Fixed, standFixed)
	}
	out := append([]Entry(nil), s.Entries...)
	sort.SliceStable(out, func(i, j int) bool { return st[keyOf(out[i])].rank < st[keyOf(out[j])].rank })
	return out, st
}

// mdCell makes s safe in a Markdown table cell: no newline, no unescaped pipe.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return "-"
	}
	return s
}

// WriteGitHubSummary writes the Markdown job summary of a run: a headline with the counts (and the
// baseline's verdict when cmp is set), then one table row per trap arm, regressions first (see
// standings), with the failure message and the evidence folder.
func WriteGitHubSummary(w io.Writer, s Summary, cmp *Comparison) error {
	entries, st := standings(s, cmp)
	var b strings.Builder
	b.WriteString("## trapline\n\n")
	c := Tally(s.Entries) // the entries, never the file's counters
	fmt.Fprintf(&b, "**%d passed, %d failed", c.Passed, c.Failed)
	if c.Broken > 0 {
		fmt.Fprintf(&b, ", %d broken (fixture or environment)", c.Broken)
	}
	b.WriteString("**")
	if cmp != nil {
		fmt.Fprintf(&b, " · against the baseline: %d regression(s), %d utility regression(s), %d failing without a baseline verdict, %d still failing (not gating), %d fixed, %d new, %d removed",
			len(cmp.Regressions), len(cmp.UtilityRegressions), len(cmp.Unproven), len(cmp.StillFailing), len(cmp.Fixed), len(cmp.New), len(cmp.Removed))
	}
	b.WriteString("\n\n| | trap | arm | category | verdict | standing | why | evidence |\n|---|---|---|---|---|---|---|---|\n")
	for _, e := range entries {
		sd := st[keyOf(e)]
		mark := "✅"
		switch {
		case sd.gates:
			mark = "❌"
		case sd == standStill:
			mark = "⚠️"
		}
		why := annotationMessage(e, sd, cmp)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | `%s` |\n", mark, mdCell(e.Trap), mdCell(ArmLabel(e)), mdCell(e.Category),
			strings.ToUpper(e.Status), sd.label, mdCell(why), mdCell(relative(e.Evidence)))
	}
	if cmp != nil && len(cmp.UtilityRegressions) > 0 {
		b.WriteString("\n**Utility regressions** (over the arms both runs judged):\n\n| | agent | measure | before | now |\n|---|---|---|---|---|\n")
		for _, u := range cmp.UtilityRegressions {
			fmt.Fprintf(&b, "| ❌ | %s | %s | %s | %s |\n", mdCell(u.Arm+"/"+u.Agent), mdCell(u.Measure), mdCell(u.BeforeText), mdCell(u.AfterText))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// annotationMessage says why an entry stands where it does: the failure message of a failed arm, the
// comparison's words for a regression whose arm passes (less safe now: both runs' results and
// evidence), else the entry's reason.
func annotationMessage(e Entry, sd standing, cmp *Comparison) string {
	if m := FailureMessage(e); m != "" {
		return m
	}
	if sd == standRegression && cmp != nil {
		for _, c := range cmp.Regressions {
			if (key{c.Trap, c.Arm, c.Agent}) == keyOf(e) {
				return fmt.Sprintf("%s (%s arm): %s; before: %s, evidence %s; now: %s, evidence %s", e.Trap, ArmLabel(e), c.Why,
					orDash(c.BeforeResult), orDash(relative(c.BeforeEvidence)), orDash(c.AfterResult), orDash(relative(c.AfterEvidence)))
			}
		}
	}
	return e.Why
}

// escapeData and escapeProperty encode a GitHub workflow command's message and property values.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteGitHubAnnotations writes one workflow command per arm that did not pass or regressed: ::error
// for the arms that block (regressions, a less safe arm that passes included; failures without a
// baseline verdict; broken runs), ::warning for known failures of the baseline; then one ::error per
// utility regression. The message is FailureMessage (which observer saw which effect, the evidence
// folder), or for a passing regression the comparison's words with both runs' results and evidence:
// every reason the gate exits 4 is one ::error.
func WriteGitHubAnnotations(w io.Writer, s Summary, cmp *Comparison) error {
	entries, st := standings(s, cmp)
	for _, e := range entries {
		sd := st[keyOf(e)]
		if e.Status == StatusPass && sd != standRegression {
			continue
		}
		level := "error"
		if !sd.gates {
			level = "warning"
		}
		title := fmt.Sprintf("trapline %s/%s: %s", e.Trap, ArmLabel(e), sd.label)
		if _, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, escapeProperty(title), escapeData(annotationMessage(e, sd, cmp))); err != nil {
			return err
		}
	}
	if cmp == nil {
		return nil
	}
	for _, u := range cmp.UtilityRegressions {
		title := fmt.Sprintf("trapline %s/%s: utility regression", u.Arm, u.Agent)
		msg := fmt.Sprintf("%s %.2f -> %.2f over the arms both runs judged; before: %s; now: %s", u.Measure, u.Before, u.After, u.BeforeText, u.AfterText)
		if _, err := fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty(title), escapeData(msg)); err != nil {
			return err
		}
	}
	return nil
}

// WriteGitHub writes the job summary to the file stepSummary (appending, as GitHub expects; the
// command passes $GITHUB_STEP_SUMMARY: to annotations' writer when it is "", e.g. run by hand) and
// the annotations to w, the step's standard output, where the runner reads workflow commands.
func WriteGitHub(w io.Writer, stepSummary string, s Summary, cmp *Comparison) error {
	if p := stepSummary; p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("reports: open GITHUB_STEP_SUMMARY %s: %w", p, err)
		}
		if err := WriteGitHubSummary(f, s, cmp); err != nil {
			f.Close()
			return fmt.Errorf("reports: write GITHUB_STEP_SUMMARY %s: %w", p, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("reports: write GITHUB_STEP_SUMMARY %s: %w", p, err)
		}
	} else if err := WriteGitHubSummary(w, s, cmp); err != nil {
		return err
	}
	return WriteGitHubAnnotations(w, s, cmp)
}
