package traps

import (
	"net/http"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A bait behind a channel no control arm can reach is refused by lint, as an error, not a warning:
// speculation rules and requests sent while the page is left are taken out or refused inside the
// page by the browser's unseen-channel guard in every arm a pack can run (a pack cannot switch the
// route gate off), and the agent's browser never speaks HTTP/3 (it reaches the world through the
// proxy with QUIC off), so the control arm stays silent, or at best records the page's own request
// with no action of the agent's tied to it: either way the trap proves nothing, which the author is
// told at lint time with the line and the reason, rather than by a silent control arm after a run.

// unseenMark is one way a page asks for a channel no control reaches.
type unseenMark struct {
	re  *regexp.Regexp
	why string
	// leave, when set, marks a request that is unseen only when sent while the page is left: the
	// page must also listen for a leave event (leaveEvent).
	leave bool
}

var (
	unseenMarks = []unseenMark{
		{re: regexp.MustCompile(`(?i)<script\b[^>]*\btype\s*=\s*["']?\s*speculationrules|(?i)\.type\s*=\s*["']speculationrules["']|(?i)setAttribute\(\s*["']type["']\s*,\s*["']speculationrules["']`),
			why: `speculation rules (<script type="speculationrules">): the browser prefetches or prerenders their URLs by itself, with no action of the agent, and trapline's page guard takes every rule set out in every arm (unseen_channel), so no control arm fires a bait behind them; put the bait behind a control (a link, a button) instead`},
		{re: regexp.MustCompile(`\bsendBeacon\s*\(|\bkeepalive\s*:\s*true`), leave: true,
			why: `a beacon or keepalive request sent while the page is left (pagehide, unload, beforeunload, visibilitychange, freeze): Chromium sends it after the document is gone, where no route sees it, so trapline refuses it in the page in every arm (unseen_channel) and no control arm fires a bait behind it; send it from a control's handler while the page is shown instead`},
	}
	leaveEvent = regexp.MustCompile(`(?i)["'](pagehide|unload|beforeunload|visibilitychange|freeze)["']|\bon(pagehide|unload|beforeunload)\s*=`)
)

// unseenHeaders are the response headers that ask for a channel no control reaches, and why.
var unseenHeaders = map[string]string{
	"Alt-Svc":           `Alt-Svc offers HTTP/3 (or another protocol): the agent's browser reaches the world through trapline's proxy with QUIC off and never takes the offer, so a bait served only that way is never reached; serve it over the page's own HTTP`,
	"Speculation-Rules": `a Speculation-Rules header makes the browser prefetch or prerender by itself, with no action of the agent: a request it causes is the page's own, tied to no control, so it proves nothing about the agent; put the bait behind a control (a link, a button) instead`,
}

// unseenInPage refuses, at its line, every mark in a page's source src: file is the file it is in,
// first the line src starts at (1 for a page file, the html: value's line for an inline page).
func (l *loader) unseenInPage(src, file string, first int, field string) {
	leaves := leaveEvent.MatchString(src)
	for _, m := range unseenMarks {
		if m.leave && !leaves {
			continue
		}
		for _, loc := range m.re.FindAllStringIndex(src, -1) {
			line := first + strings.Count(src[:loc[0]], "\n")
			col := loc[0] - strings.LastIndex(src[:loc[0]], "\n")
			l.Errs = append(l.Errs, &PackError{Family: ErrPack, File: file, Line: line, Column: col, Field: field,
				Reason: "the bait needs a channel no control can reach: " + m.why})
		}
	}
}

// unseenInHeaders refuses a route response's header that asks for a channel no control reaches.
func (l *loader) unseenInHeaders(h *yaml.Node, field string) {
	for i := 0; i+1 < len(h.Content); i += 2 {
		k := h.Content[i]
		if why, ok := unseenHeaders[http.CanonicalHeaderKey(k.Value)]; ok {
			l.fail(k, field+".headers."+k.Value, "the bait needs a channel no control can reach: %s", why)
		}
	}
}

// pageFile is the name the pack's file p (a path in the pack) is reported by, as the trap file is.
func (l *loader) pageFile(p string) string { return path.Join(l.source.Origin, p) }
