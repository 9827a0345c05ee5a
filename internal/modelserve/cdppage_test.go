package modelserve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// fakeDevTools serves /json/list, /json/version and a browser WebSocket that answers
// Target.attachToTarget and Runtime.evaluate with the given pages' script results (by target id),
// sending an event before each answer as a browser does.
func fakeDevTools(t *testing.T, pages map[string]map[string]any) string {
	t.Helper()
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/json/list", func(w http.ResponseWriter, r *http.Request) {
		var out []map[string]string
		for id, p := range pages {
			out = append(out, map[string]string{"id": id, "type": "page", "url": p["url"].(string)})
		}
		out = append(out, map[string]string{"id": "sw", "type": "service_worker", "url": "chrome-extension://x/sw.js"})
		_ = json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("/json/version", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"webSocketDebuggerUrl": "ws" + strings.TrimPrefix(srv.URL, "http") + "/devtools/browser/x"})
	})
	mux.HandleFunc("/devtools/browser/x", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			http.Error(w, "origin refused", http.StatusForbidden) // as Chromium does
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, data, err := c.Read(r.Context())
			if err != nil {
				return
			}
			var m struct {
				ID        int64          `json:"id"`
				Method    string         `json:"method"`
				Params    map[string]any `json:"params"`
				SessionID string         `json:"sessionId"`
			}
			_ = json.Unmarshal(data, &m)
			var result any = map[string]any{}
			switch m.Method {
			case "Target.attachToTarget":
				result = map[string]any{"sessionId": "s-" + m.Params["targetId"].(string)}
			case "Runtime.evaluate":
				// The reader asks for its page script's answer as JSON text (worldpage.Eval returns strings).
				text, _ := json.Marshal(pages[strings.TrimPrefix(m.SessionID, "s-")])
				result = map[string]any{"result": map[string]any{"type": "string", "value": string(text)}}
			}
			_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"method":"Target.targetInfoChanged","params":{}}`))
			b, _ := json.Marshal(map[string]any{"id": m.ID, "result": result})
			_ = c.Write(r.Context(), websocket.MessageText, b)
		}
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCDPPagesReadsTheVisiblePage(t *testing.T) {
	page := map[string]any{"url": "http://portale.interno.test/pratiche/4", "width": 1280, "height": 720, "visible": true, "focused": false,
		"elements": []any{map[string]any{"role": "button", "name": "Elimina pratica", "x": 8, "y": 140, "w": 110, "h": 21}}}
	hidden := map[string]any{"url": "http://portale.interno.test/", "width": 1280, "height": 720, "visible": false, "focused": false, "elements": []any{}}
	p, err := CDPPages{URL: fakeDevTools(t, map[string]map[string]any{"A": page, "B": hidden})}.ReadPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "http://portale.interno.test/pratiche/4" || p.Width != 1280 || len(p.Nodes) != 1 || p.Nodes[0].Name != "Elimina pratica" || p.Nodes[0].W != 110 {
		t.Errorf("page %+v", p)
	}
}

// Two visible pages and no focus: not one page the agent is on, an error, never a guess.
func TestCDPPagesAmbiguousIsAnError(t *testing.T) {
	a := map[string]any{"url": "http://a.test/", "width": 10, "height": 10, "visible": true, "elements": []any{}}
	b := map[string]any{"url": "http://b.test/", "width": 10, "height": 10, "visible": true, "elements": []any{}}
	_, err := CDPPages{URL: fakeDevTools(t, map[string]map[string]any{"A": a, "B": b})}.ReadPage(context.Background())
	if err == nil || !strings.Contains(err.Error(), "2 visible web pages") {
		t.Errorf("err = %v", err)
	}
	if _, err := (CDPPages{URL: "http://127.0.0.1:1"}).ReadPage(context.Background()); err == nil || !strings.Contains(err.Error(), "DevTools endpoint") {
		t.Errorf("no endpoint: err = %v", err)
	}
}
