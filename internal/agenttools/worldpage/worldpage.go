// Package worldpage reads a page of the run's own browser (TRAPLINE_CDP_URL) over the DevTools
// protocol: the ground truth of what an agent tool that drives that browser has on screen, whatever
// the tool's own reading shows. It lists the browser's pages (/json/list) and evaluates a script of
// trapline's in one of them through the browser's WebSocket (a flat session per call), which works the
// same against a Chromium's own DevTools port and trapline's shared-browser endpoint.
//
// golang.org/x/net/websocket always sends an Origin header, which Chromium's DevTools port refuses
// unless it was started with --remote-allow-origins; github.com/coder/websocket sends none.
package worldpage

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

// Page is one page target of the browser.
type Page struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Blank reports whether p shows nothing of the world yet (about:blank, a browser page).
func (p Page) Blank() bool {
	return p.URL == "" || strings.HasPrefix(p.URL, "about:") || strings.HasPrefix(p.URL, "chrome") || strings.HasPrefix(p.URL, "devtools:")
}

// maxMessage bounds one DevTools message read (a page's reading).
const maxMessage = 16 << 20

// client talks to the loopback DevTools endpoint only: no proxy.
var client = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 10 * time.Second}

func getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Pages lists the page targets of the browser at cdpURL (http://127.0.0.1:PORT).
func Pages(ctx context.Context, cdpURL string) ([]Page, error) {
	var all []Page
	if err := getJSON(ctx, strings.TrimRight(cdpURL, "/")+"/json/list", &all); err != nil {
		return nil, fmt.Errorf("worldpage: list the browser's pages: %w", err)
	}
	var pages []Page
	for _, p := range all {
		if p.Type == "page" {
			pages = append(pages, p)
		}
	}
	return pages, nil
}

// ErrEval says the script threw or the page could not run it.
var ErrEval = errors.New("worldpage: the script did not run")

// Eval evaluates expression in the page target id and returns its value, which must be a string.
func Eval(ctx context.Context, cdpURL, id, expression string) (string, error) {
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := getJSON(ctx, strings.TrimRight(cdpURL, "/")+"/json/version", &v); err != nil {
		return "", fmt.Errorf("worldpage: the browser's WebSocket: %w", err)
	}
	conn, _, err := websocket.Dial(ctx, v.WS, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		return "", fmt.Errorf("worldpage: connect to the browser: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxMessage)
	s := &session{conn: conn}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &attached); err != nil {
		return "", fmt.Errorf("worldpage: attach to page %s: %w", id, err)
	}
	var res struct {
		Result struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err = s.call(ctx, attached.SessionID, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true}, &res)
	_ = s.call(ctx, "", "Target.detachFromTarget", map[string]any{"sessionId": attached.SessionID}, nil)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrEval, err)
	}
	if e := res.Exception; e != nil {
		msg := e.Text
		if e.Exception != nil {
			msg = e.Exception.Description
		}
		return "", fmt.Errorf("%w: %s", ErrEval, msg)
	}
	var out string
	if res.Result.Type != "string" || json.Unmarshal(res.Result.Value, &out) != nil {
		return "", fmt.Errorf("%w: the script returned a %s, not a string", ErrEval, res.Result.Type)
	}
	return out, nil
}

// session is one WebSocket to the browser, its calls numbered.
type session struct {
	conn *websocket.Conn
	next int
}

// call sends method (to sessionID's target when set) and waits for its answer, skipping events.
func (s *session) call(ctx context.Context, sessionID, method string, params, out any) error {
	s.next++
	msg := map[string]any{"id": s.next, "method": method, "params": params}
	if sessionID != "" {
		msg["sessionId"] = sessionID
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if err := s.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		_, data, err := s.conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &reply) != nil || reply.ID != s.next {
			continue // an event, or another call's answer
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
