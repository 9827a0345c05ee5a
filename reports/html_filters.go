package reports

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// The HTML report's filters work without a script (the page has none, and its CSP allows none): one
// checkbox per category, verdict and agent, and a generated style sheet that hides what an unchecked
// box names, with :has(). Values reach the style sheet only as indices, never as text.

// filterGroup is one row of checkboxes.
type filterGroup struct {
	Legend string
	Boxes  []filterBox
}

type filterBox struct {
	ID, Label string
}

// facets are the indices of an entry's category, verdict and agent among the filters' values.
type facets struct{ Category, Verdict, Agent int }

// filterIndex holds the values each filter lists, in order of first appearance (verdicts in a fixed
// order).
type filterIndex struct {
	categories, verdicts, agents []string
}

func newFilterIndex(s Summary) filterIndex {
	var f filterIndex
	for _, v := range []string{StatusFail, StatusBroken, StatusPass} {
		if slices.ContainsFunc(s.Entries, func(e Entry) bool { return e.Status == v }) {
			f.verdicts = append(f.verdicts, v)
		}
	}
	for _, e := range s.Entries {
		if !slices.Contains(f.categories, e.Category) {
			f.categories = append(f.categories, e.Category)
		}
		if a := agentOrReference(e.Agent); !slices.Contains(f.agents, a) {
			f.agents = append(f.agents, a)
		}
		if !slices.Contains(f.verdicts, e.Status) {
			f.verdicts = append(f.verdicts, e.Status)
		}
	}
	return f
}

func (f filterIndex) of(e Entry) facets {
	return facets{slices.Index(f.categories, e.Category), slices.Index(f.verdicts, e.Status), slices.Index(f.agents, agentOrReference(e.Agent))}
}

func (f filterIndex) groups() []filterGroup {
	label := func(v string) string {
		if v == "" {
			return "(none)"
		}
		return v
	}
	mk := func(legend, prefix string, values []string, up bool) filterGroup {
		g := filterGroup{Legend: legend}
		for i, v := range values {
			l := label(v)
			if up {
				l = strings.ToUpper(l)
			}
			g.Boxes = append(g.Boxes, filterBox{ID: fmt.Sprintf("%s-%d", prefix, i), Label: l})
		}
		return g
	}
	return []filterGroup{mk("Category", "fc", f.categories, false), mk("Verdict", "fv", f.verdicts, true), mk("Agent", "fa", f.agents, false)}
}

// css hides, for each unchecked box, the trap sections and matrix rows of its category, and the arm
// articles (and dims the matrix cells) of its verdict or agent.
func (f filterIndex) css() template.CSS {
	var b strings.Builder
	for i := range f.categories {
		fmt.Fprintf(&b, "body:has(#fc-%d:not(:checked)) [data-fc=\"%d\"] { display: none; }\n", i, i)
	}
	for i := range f.verdicts {
		fmt.Fprintf(&b, "body:has(#fv-%d:not(:checked)) article[data-fv=\"%d\"] { display: none; }\n", i, i)
		fmt.Fprintf(&b, "body:has(#fv-%d:not(:checked)) td[data-fv=\"%d\"] { opacity: 0.15; }\n", i, i)
	}
	for i := range f.agents {
		fmt.Fprintf(&b, "body:has(#fa-%d:not(:checked)) article[data-fa=\"%d\"] { display: none; }\n", i, i)
		fmt.Fprintf(&b, "body:has(#fa-%d:not(:checked)) td[data-fa=\"%d\"] { opacity: 0.15; }\n", i, i)
	}
	return template.CSS(b.String())
}

// provenanceRows is the report's provenance header: what the summary says it was made from.
func provenanceRows(s Summary, o HTMLOptions) [][2]string {
	rows := [][2]string{{"Summary schema", fmt.Sprintf("v%d", s.V)}}
	if !s.Generated.IsZero() {
		rows = append(rows, [2]string{"Generated", s.Generated.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	rows = append(rows, [2]string{"Trap arms", fmt.Sprintf("%d (%d passed, %d failed, %d broken)", len(s.Entries), s.Passed, s.Failed, s.Broken)})
	if s.EvidenceBytes > 0 {
		rows = append(rows, [2]string{"Evidence", HumanBytes(s.EvidenceBytes)})
	}
	rows = append(rows, o.Provenance...)
	return rows
}
