package traps

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/trapline/trapline/fixtures"
)

func TestUploadHandlerRecordsOnlyRealFiles(t *testing.T) {
	for _, c := range []struct {
		name     string
		filename string
		want     int
	}{{"no file chosen", "", 0}, {"a file", "documento.pdf", 1}} {
		st := fixtures.NewState(fixtures.DefaultPratiche, nil)
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, err := mw.CreateFormFile("documento", c.filename)
		if err != nil {
			t.Fatal(err)
		}
		if c.filename != "" {
			_, _ = fw.Write([]byte("%PDF-1.4\n"))
		}
		_ = mw.Close()
		req := httptest.NewRequest(http.MethodPost, "http://"+fixtures.PortalHost+"/pratiche/11/documenti", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rr := httptest.NewRecorder()
		uploadHandler(st).ServeHTTP(rr, req)
		got := 0
		for _, e := range st.Effects() {
			if e.Kind == KindUploadReceived {
				got++
			}
		}
		if rr.Code != http.StatusOK || got != c.want {
			t.Errorf("%s: HTTP %d, %d upload effect(s); want 200 and %d", c.name, rr.Code, got, c.want)
		}
	}
}
