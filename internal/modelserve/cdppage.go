package modelserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/trapline/trapline/internal/agenttools/worldpage"
)

// CDPPages reads the agent's page from the run's own browser over its DevTools endpoint (the
// TRAPLINE_CDP_URL the agent drives): the run's pages from /json/list, each read in a session of
// the browser WebSocket (the one a filtered shared-browser endpoint serves too) by a fixed script
// that lists the visible elements with their role, name and box. The page the agent is on is the
// one visible page (or, of several, the one with focus); none, or several, is an error: a
// coordinate is never grounded on a guessed page. (worldpage's client sends no Origin,
// which Chromium's DevTools refuses unless told to allow it.)
type CDPPages struct {
	// URL is the DevTools HTTP endpoint (http://127.0.0.1:PORT).
	URL string
}

// pageScript lists the page's visible interactive elements, headings and a description list's terms
// and definitions (role, accessible name, box in viewport CSS pixels) and its visible text outside
// them.
const pageScript = `(() => {
  const roleOf = el => {
    const r = el.getAttribute('role'); if (r) return r.split(' ')[0];
    const t = el.tagName.toLowerCase(), ty = (el.getAttribute('type') || '').toLowerCase();
    if (t === 'a' && el.hasAttribute('href')) return 'link';
    if (t === 'button' || t === 'summary') return 'button';
    if (t === 'select') return 'combobox';
    if (t === 'textarea') return 'textbox';
    if (t === 'input') return ty === 'hidden' ? '' : ty === 'checkbox' ? 'checkbox' : ty === 'radio' ? 'radio' : ['submit','button','reset','image'].includes(ty) ? 'button' : 'textbox';
    if (/^h[1-6]$/.test(t)) return 'heading';
    if (t === 'dt') return 'term';
    if (t === 'dd') return 'definition';
    return '';
  };
  const nameOf = el => {
    const a = el.getAttribute('aria-label'); if (a && a.trim()) return a.trim();
    if (el.labels && el.labels.length) return el.labels[0].innerText.trim();
    if (el.tagName === 'SELECT') return (el.getAttribute('name') || el.getAttribute('title') || '').trim();
    const t = (el.innerText || '').trim().replace(/\s+/g, ' '); if (t) return t;
    for (const k of ['value', 'placeholder', 'title', 'alt', 'name']) { const v = el.getAttribute(k); if (v && v.trim()) return v.trim(); }
    return '';
  };
  const shown = el => { const s = getComputedStyle(el), r = el.getBoundingClientRect(); return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0; };
  const nodes = [];
  const walk = n => {
    if (nodes.length > 2000) return;
    if (n.nodeType === 3) { const t = n.data.trim().replace(/\s+/g, ' '); if (t && n.parentElement && shown(n.parentElement)) nodes.push({role: 'text', name: t}); return; }
    if (n.nodeType !== 1 || ['SCRIPT','STYLE','NOSCRIPT','TEMPLATE'].includes(n.tagName)) return;
    const role = roleOf(n);
    if (role && shown(n)) { const r = n.getBoundingClientRect(); nodes.push({role, name: nameOf(n), x: r.x, y: r.y, w: r.width, h: r.height}); if (role !== 'heading') return; }
    if (role === 'heading') return;
    for (const c of n.childNodes) walk(c);
  };
  if (document.body) walk(document.body);
  return {url: location.href, width: innerWidth, height: innerHeight, visible: document.visibilityState === 'visible', focused: document.hasFocus(), elements: nodes};
})()`

// ReadPage implements PageReader: every web page target of the run's browser is read with
// pageScript (worldpage: the one DevTools client of the module), and the one that is visible (or, of
// several, the one with focus) is the agent's.
func (c CDPPages) ReadPage(ctx context.Context) (Page, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	tabs, err := worldpage.Pages(ctx, c.URL)
	if err != nil {
		return Page{}, fmt.Errorf("the run's browser's DevTools endpoint: %w", err)
	}
	var visible, focused []Page
	for _, t := range tabs {
		if !strings.HasPrefix(t.URL, "http") {
			continue
		}
		p, vis, foc, err := readTarget(ctx, c.URL, t.ID)
		if err != nil {
			return Page{}, fmt.Errorf("read page %s: %w", t.URL, err)
		}
		if vis {
			visible = append(visible, p)
			if foc {
				focused = append(focused, p)
			}
		}
	}
	switch {
	case len(visible) == 1:
		return visible[0], nil
	case len(focused) == 1:
		return focused[0], nil
	}
	return Page{}, fmt.Errorf("the run's browser shows %d visible web pages (%d with focus): not one page the agent is on", len(visible), len(focused))
}

// readTarget reads one page target with pageScript: the page, whether it is visible and focused.
func readTarget(ctx context.Context, cdpURL, id string) (Page, bool, bool, error) {
	answer, err := worldpage.Eval(ctx, cdpURL, id, "JSON.stringify("+pageScript+")")
	if err != nil {
		return Page{}, false, false, err
	}
	var v struct {
		Page
		Visible bool `json:"visible"`
		Focused bool `json:"focused"`
	}
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		return Page{}, false, false, fmt.Errorf("the page script's answer: %w", err)
	}
	return v.Page, v.Visible, v.Focused, nil
}
