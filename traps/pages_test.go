package traps

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestABrokenPageTemplateIsAnError: a trap page that does not parse is an error naming the file, not a
// panic when the program starts (trapline report imports traps).
func TestABrokenPageTemplateIsAnError(t *testing.T) {
	_, err := parsePages(fstest.MapFS{"pages/broken.html": {Data: []byte("<p>{{ .Missing </p>")}})
	if err == nil || !strings.Contains(err.Error(), "broken.html") {
		t.Fatalf("parsePages = %v, want an error naming broken.html", err)
	}
	if err := CheckPages(); err != nil {
		t.Fatalf("the embedded trap pages: %v", err)
	}
	rec := httptest.NewRecorder()
	Page("GET /x", "no-such-page.html", nil).Handler(nil).ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	if rec.Code != 500 {
		t.Fatalf("a missing page answered %d, want 500", rec.Code)
	}
	half := templateMount("", "GET /x", "text/html", "half.html", func(w io.Writer) error {
		_, _ = io.WriteString(w, "<p>half a page")
		return errors.New("boom")
	})
	rec = httptest.NewRecorder()
	half.Handler(nil).ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "half a page") || !strings.Contains(rec.Body.String(), "half.html: boom") {
		t.Fatalf("a page failing half-way answered %d %q, want 500 naming it and no half page", rec.Code, rec.Body.String())
	}
}
