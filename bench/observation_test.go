package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// tokens estimates a text's token count as its characters divided by 4, the usual rule of thumb for
// English-like text with BPE tokenizers (no tokenizer is available offline here).
func tokens(s string) float64 { return float64(len([]rune(s))) / 4 }

// interactiveRoles are the roles an agent can act on; the default snapshot is counted by them.
var interactiveRoles = []string{"button", "link", "textbox", "combobox", "checkbox", "radio", "searchbox", "switch", "tab", "menuitem", "option", "slider", "spinbutton"}

// ObservationCost is one page's measurement.
type ObservationCost struct {
	Page              string  `json:"page"`
	DefaultTokens     float64 `json:"default_aria_tokens"`
	CompactTokens     float64 `json:"compact_tokens"`      // interactive-only view
	CompactTextTokens float64 `json:"compact_text_tokens"` // interactive view plus text lines
	TextTokens        float64 `json:"visible_text_tokens"`
	Ratio             float64 `json:"compact_over_default"`
	Actionable        int     `json:"actionable_elements"`       // interactive-role refs in the AI snapshot
	CompactKept       int     `json:"compact_kept_actionable"`   // interactive elements the compact view lists
	DefaultKept       int     `json:"default_interactive_lines"` // interactive-role lines in the default snapshot
	CompactComplete   bool    `json:"compact_complete"`
}

// bigTable mounts a page with a 500-row table of links and buttons.
func bigTable() fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: "GET /pratiche/grande", Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			var b strings.Builder
			b.WriteString("<!doctype html><html lang=it><body><h1>Elenco completo</h1><table><tr><th>N.</th><th>Titolo</th><th>Stato</th><th>Azioni</th></tr>")
			for i := 1; i <= 500; i++ {
				fmt.Fprintf(&b, "<tr><td>%d</td><td><a href='/pratiche/%d'>Pratica %d: verifica documentale</a></td><td>aperta</td><td><button>Apri %d</button></td></tr>", i, i, i, i)
			}
			b.WriteString("</table></body></html>")
			_, _ = w.Write([]byte(b.String()))
		})
	}}
}

// BenchmarkObservationCost measures, on every trap's start page and on a 500-row page, the tokens of
// agentkit's compact observation against Playwright's default aria snapshot and the page's visible text,
// with the actionable elements each keeps. It writes bench/observation.json. Target: compact at most
// 0.6x the default snapshot, keeping 100% of the actionable elements.
func BenchmarkObservationCost(b *testing.B) {
	pol := mustPolicy(b, "permissive")
	br := launchBrowser(b)
	type target struct {
		name, path string
		mounts     []fixtures.Mount
	}
	var targets []target
	for _, t := range traps.Catalog() {
		targets = append(targets, target{t.ID, t.StartPath, t.Mounts})
	}
	targets = append(targets, target{"table-500-rows", "/pratiche/grande", []fixtures.Mount{bigTable()}})
	var results []ObservationCost
	var sumDefault, sumCompact float64
	for b.Loop() {
		results, sumDefault, sumCompact = results[:0], 0, 0
		for _, tg := range targets {
			c, err := measure(b, br, pol, tg.path, tg.mounts)
			if err != nil {
				b.Fatalf("%s: %v", tg.name, err)
			}
			c.Page = tg.name
			results = append(results, c)
			sumDefault += c.DefaultTokens
			sumCompact += c.CompactTokens
		}
	}
	worst := 0.0
	for _, r := range results {
		worst = max(worst, r.Ratio)
	}
	b.ReportMetric(sumCompact/sumDefault, "compact/default")
	b.ReportMetric(worst, "worst-page-ratio")
	out, _ := json.MarshalIndent(results, "", "  ")
	if err := os.WriteFile("observation.json", append(out, '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
}

func measure(b *testing.B, br *browser.Browser, pol *policy.Policy, path string, mounts []fixtures.Mount) (ObservationCost, error) {
	dir := b.TempDir()
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: mounts}, Dir: dir})
	if err != nil {
		return ObservationCost{}, err
	}
	defer w.Close()
	rec, err := evidence.Open(dir, nil)
	if err != nil {
		return ObservationCost{}, err
	}
	defer rec.Close()
	s, err := br.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec})
	if err != nil {
		return ObservationCost{}, err
	}
	defer s.Close()
	if res := s.Goto(context.Background(), w.URL(path)); res.Err != nil {
		return ObservationCost{}, res.Err
	}
	page := s.Page()
	def, err := page.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeDefault})
	if err != nil {
		return ObservationCost{}, err
	}
	text, err := page.Locator("body").InnerText()
	if err != nil {
		return ObservationCost{}, err
	}
	obs, err := s.Observe(context.Background()) // AI mode, last: refs stay valid for nothing else here
	if err != nil {
		return ObservationCost{}, err
	}
	comp, err := obs.Compact(observe.CompactOptions{})
	if err != nil {
		return ObservationCost{}, err
	}
	withText, err := obs.Compact(observe.CompactOptions{IncludeText: true, MaxTextRunes: 80})
	if err != nil {
		return ObservationCost{}, err
	}
	c := ObservationCost{DefaultTokens: tokens(def), CompactTokens: tokens(comp.Text), CompactTextTokens: tokens(withText.Text),
		TextTokens: tokens(text), CompactComplete: comp.Complete}
	for _, n := range obs.Elements() {
		if interactive(n.Role) {
			c.Actionable++
		}
	}
	for _, line := range strings.Split(comp.Text, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.Contains(f[0], ":") && interactive(f[1]) {
			c.CompactKept++
		}
	}
	if c.DefaultTokens > 0 {
		c.Ratio = c.CompactTokens / c.DefaultTokens
	}
	for _, line := range strings.Split(def, "\n") {
		l := strings.TrimLeft(line, " -")
		role, _, _ := strings.Cut(l, " ")
		role = strings.TrimSuffix(role, ":")
		if interactive(role) {
			c.DefaultKept++
		}
	}
	return c, nil
}

func interactive(role string) bool {
	for _, r := range interactiveRoles {
		if role == r {
			return true
		}
	}
	return false
}
