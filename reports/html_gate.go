package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// recordedRows are the provenance rows the page folds away: the summary's own rows, then each field
// of its provenance that was recorded (an empty field, a zero time, says nothing and is left out).
func recordedRows(rows [][2]string, p *Provenance) [][2]string {
	var out [][2]string
	keep := func(name, value string) {
		if v := strings.TrimSpace(value); v != "" && v != "0" && v != (time.Time{}).UTC().Format(time.RFC3339) {
			out = append(out, [2]string{name, value})
		}
	}
	for _, r := range rows {
		keep(r[0], r[1])
	}
	if p != nil {
		for _, prop := range p.Properties() {
			keep(strings.TrimPrefix(prop.Name, "provenance."), prop.Value)
		}
	}
	return out
}

// gateOf is the page's verdict, as the gate (trapline report) reads the same summary and comparison:
// REGRESSION when the baseline comparison holds one, NOT COMPARED when it cannot be made, BROKEN when
// an arm could not be run, FAIL when an arm failed with no baseline verdict to excuse it, NOTHING
// PROVEN without an arm, else PASS (known failures of the baseline named). The failures list is every
// arm that blocks or is known to fail, worst first (standings), each with its reason.
func gateOf(s Summary, cmp *Comparison) (gateView, []failureView) {
	entries, st := standings(s, cmp)
	var fails []failureView
	count := map[standing]int{}
	for _, e := range entries {
		sd := st[keyOf(e)]
		if e.Status == StatusPass && sd != standRegression {
			continue
		}
		count[sd]++
		class := "fail"
		switch sd {
		case standBroken:
			class = "broken"
		case standStill:
			class = "none"
		}
		fails = append(fails, failureView{Anchor: anchor(e.Trap, ArmLabel(e)), Label: e.Trap + " " + ArmLabel(e), Standing: sd.label, Class: class,
			Message: annotationMessage(e, sd, cmp)})
	}
	regressions, utility := count[standRegression], 0
	if cmp != nil {
		regressions, utility = len(cmp.Regressions), len(cmp.UtilityRegressions)
		for i, u := range cmp.UtilityRegressions {
			// After the arms' regressions, before every other failure: the gate exits 4 for it too.
			at := min(count[standRegression]+i, len(fails))
			fails = slices.Insert(fails, at, failureView{Anchor: "utility-h", Label: u.Arm + "/" + u.Agent, Standing: "utility regression", Class: "fail",
				Message: fmt.Sprintf("%s %.2f -> %.2f over the arms both runs judged; before: %s; now: %s", u.Measure, u.Before, u.After, u.BeforeText, u.AfterText)})
		}
	}
	switch {
	case len(s.Entries) == 0:
		return gateView{"NOTHING PROVEN", "broken", "the summary holds no trap arm"}, fails
	case regressions+utility > 0:
		return gateView{"REGRESSION", "fail", fmt.Sprintf("%d regression(s) and %d utility regression(s) against the baseline: listed below, then every other failure", regressions, utility)}, fails
	case cmp != nil && cmp.UnmatchedAgents != "":
		return gateView{"NOT COMPARED", "broken", cmp.UnmatchedAgents}, fails
	case count[standBroken] > 0:
		return gateView{"BROKEN", "broken", fmt.Sprintf("%d trap arm(s) could not be run (fixture or environment): not a trap firing; run again", count[standBroken])}, fails
	case count[standUnproven] > 0:
		return gateView{"FAIL", "fail", fmt.Sprintf("%d trap arm(s) failed their verdict with no baseline verdict to compare", count[standUnproven])}, fails
	case count[standStill] > 0:
		return gateView{"PASS", "pass", fmt.Sprintf("no regression; %d known failure(s) of the baseline, not gating", count[standStill])}, fails
	}
	return gateView{"PASS", "pass", fmt.Sprintf("every one of the %d trap arm(s) proved its claim", len(s.Entries))}, fails
}
