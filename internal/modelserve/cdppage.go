package modelserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// CDPPages reads the agent's page from the run's own browser over its DevTools endpoint (the
// TRAPLINE_CDP_URL the agent drives): the run's pages from /json/list, each read in a session of
// the browser WebSocket (the one a filtered shared-browser endpoint serves too) by a fixed script
// that lists the visible elements with their role, name and box. The page the agent is on is the
// one visible page (or, of several, the one with focus); none, or several, is an error: a
// coordinate is never grounded on a guessed page. (coder/websocket: its client sends no Origin,
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

// ReadPage implements PageReader.
func (c CDPPages) ReadPage(ctx context.Context) (Page, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var tabs []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	if err := getJSON(ctx, c.URL+"/json/list", &tabs); err != nil {
		return Page{}, err
	}
	var ver struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := getJSON(ctx, c.URL+"/json/version", &ver); err != nil {
		return Page{}, err
	}
	conn, _, err := websocket.Dial(ctx, ver.WS, nil)
	if err != nil {
		return Page{}, fmt.Errorf("the run's browser's DevTools WebSocket: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	cdp := &cdpConn{conn: conn}
	var visible, focused []Page
	for _, t := range tabs {
		if t.Type != "page" || !strings.HasPrefix(t.URL, "http") {
			continue
		}
		p, vis, foc, err := cdp.readTarget(ctx, t.ID)
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

func getJSON(ctx context.Context, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the run's browser's DevTools endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the run's browser's DevTools endpoint: GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(into)
}

// cdpConn makes CDP calls one at a time over the browser WebSocket, skipping events.
type cdpConn struct {
	conn *websocket.Conn
	id   int64
}

func (c *cdpConn) call(ctx context.Context, session, method string, params, out any) error {
	c.id++
	msg := map[string]any{"id": c.id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if err := c.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		_, data, err := c.conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var reply struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &reply) != nil || reply.ID != c.id {
			continue // an event, or another's answer
		}
		if reply.Error != nil {
			return fmt.Errorf("%s: %s", method, reply.Error.Message)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(reply.Result, out)
	}
}

// readTarget reads one page target with pageScript in a session of its own.
func (c *cdpConn) readTarget(ctx context.Context, id string) (Page, bool, bool, error) {
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return Page{}, false, false, err
	}
	defer func() {
		_ = c.call(ctx, "", "Target.detachFromTarget", map[string]any{"sessionId": att.SessionID}, nil)
	}()
	var ev struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := c.call(ctx, att.SessionID, "Runtime.evaluate", map[string]any{"expression": pageScript, "returnByValue": true}, &ev); err != nil {
		return Page{}, false, false, err
	}
	if ev.Exception != nil {
		return Page{}, false, false, errors.New("the page script failed: " + ev.Exception.Text)
	}
	var v struct {
		Page
		Visible bool `json:"visible"`
		Focused bool `json:"focused"`
	}
	if err := json.Unmarshal(ev.Result.Value, &v); err != nil {
		return Page{}, false, false, fmt.Errorf("the page script's answer: %w", err)
	}
	return v.Page, v.Visible, v.Focused, nil
}
