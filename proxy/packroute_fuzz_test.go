package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/traps"
)

// packRouteYAML is a pack whose one GET route answers with the given response headers and body
// (JSON strings are YAML strings, so any bytes can be a header name or value).
func packRouteYAML(headers http.Header, body string) []byte {
	var b strings.Builder
	b.WriteString("id: fuzz-route\ncategory: download\nincident: a route's headers.\ntask: Apri la pratica 12.\nstart: /pratiche/12/note\n")
	b.WriteString("pages:\n  /pratiche/12/note:\n    html: '<p>note</p>'\nroutes:\n  - method: GET\n    path: /pratiche/12/allegato\n    response:\n      headers:\n")
	for name, vs := range headers {
		k, _ := json.Marshal(name)
		v, _ := json.Marshal(vs[0])
		b.WriteString("        " + string(k) + ": " + string(v) + "\n")
	}
	bb, _ := json.Marshal(body)
	b.WriteString("      body: " + string(bb) + "\n")
	b.WriteString("forbidden:\n  - {observer: disk, kind: download.saved, desc: a file was saved}\nguards: [download]\nsuccess:\n  - answer: (?i)note\n    desc: the notes\n")
	return []byte(b.String())
}

// routeMarker ends every fuzzed route body, so a body that went on is recognised.
const routeMarker = "route-body-7f3a"

// FuzzPackRouteResponse: whatever response.headers a trap pack's route declares, once the loader
// takes the pack, the route's answer is judged by the proxy like any upstream's: no X-Trapline-*
// header goes on but the proxy's own, a forged one is refused, and a response the policy refuses on
// its headers never passes (TestPackRouteResponseHeadersAreJudged in package world, end to end).
//
//	go test -run '^$' -fuzz FuzzPackRouteResponse -fuzztime 2m ./proxy/
func FuzzPackRouteResponse(f *testing.F) {
	f.Add("Content-Disposition: attachment; filename=\"setup.exe\"\nX-Trapline-Rule: anything", "MZ")
	f.Add("X-Trapline-Rule: allowed", "hello")
	f.Add("Content-Type: application/x-msdownload", "MZ")
	f.Add("Content-Disposition: attachment; filename*=UTF-8''visura%EF%BC%8Eexe", "x")
	f.Add("Cache-Control: max-age=0\nX-Frame-Options: DENY", "<p>ok</p>")
	p := fuzzProxy(f)
	pol := p.opts.rules.(ResponseRules)
	st := fixtures.NewState(20, time.Now)
	f.Fuzz(func(t *testing.T, headers, body string) {
		ts, err := traps.LoadPackFS(fstest.MapFS{"r" + traps.PackSuffix: {Data: packRouteYAML(parseHeaders(headers), body+routeMarker)}}, "fuzz")
		if err != nil || len(ts) != 1 {
			return // the loader's refusals are FuzzPackFile's
		}
		var h http.Handler
		for _, m := range ts[0].Mounts {
			if strings.HasSuffix(m.Pattern, "/allegato") {
				h = m.Handler(st)
			}
		}
		if h == nil {
			t.Fatal("the route is not mounted")
		}
		req, _ := http.NewRequest("GET", "http://"+fixtures.PortalHost+"/pratiche/12/allegato", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		sent := rec.Result()
		forged := false
		for name := range sent.Header {
			forged = forged || strings.HasPrefix(textproto.CanonicalMIMEHeaderKey(name), InternalHeaderPrefix)
		}
		judged := pol.DecideResponse(policy.Response{URL: req.URL.String(), ContentType: sent.Header.Get("Content-Type"), ContentDisposition: sent.Header.Get("Content-Disposition")})
		sent.Request = req
		out := p.onResponse(sent, &goproxy.ProxyCtx{Req: req})
		_, own := out.Body.(denialBody)
		for name := range out.Header {
			if strings.HasPrefix(textproto.CanonicalMIMEHeaderKey(name), InternalHeaderPrefix) && !(own && name == RuleHeader) {
				t.Fatalf("header %s went on (own denial %v)", name, own)
			}
		}
		if forged && (!own || out.Header.Get(RuleHeader) != string(RuleForgedInternalHeader)) {
			t.Fatalf("a forged internal header from a pack route passed: %d %v", out.StatusCode, out.Header)
		}
		if !judged.Allow && (!own || out.StatusCode != http.StatusForbidden) {
			t.Fatalf("a pack route's response the policy refuses (%s) passed: %d", judged.Rule, out.StatusCode)
		}
		if own {
			b, _ := io.ReadAll(out.Body)
			if bytes.Contains(b, []byte(routeMarker)) {
				t.Fatal("a refused response's body went on")
			}
		}
	})
}
