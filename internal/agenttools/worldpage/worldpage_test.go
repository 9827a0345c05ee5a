package worldpage

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Pages lists the page targets only; a blank page shows nothing of the world.
func TestPages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/list" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`[{"id":"1","type":"page","url":"about:blank"},{"id":"2","type":"service_worker","url":"http://p.test/sw.js"},` +
			`{"id":"3","type":"page","url":"http://portale.interno.test/pratiche/4"}]`))
	}))
	defer srv.Close()
	pages, err := Pages(context.Background(), srv.URL)
	if err != nil || len(pages) != 2 || pages[0].ID != "1" || pages[1].ID != "3" {
		t.Fatalf("Pages = %+v, %v; want the two page targets", pages, err)
	}
	if !pages[0].Blank() || pages[1].Blank() {
		t.Errorf("Blank: about:blank %v, the portal %v", pages[0].Blank(), pages[1].Blank())
	}
	// A browser that answers no version is an error naming it, never an empty reading.
	if _, err := Eval(context.Background(), srv.URL, "3", "1"); err == nil || errors.Is(err, ErrEval) {
		t.Errorf("Eval without a browser WebSocket = %v, want a connection error", err)
	}
}
