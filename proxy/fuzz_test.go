package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/elazarl/goproxy"
	"github.com/trapline/trapline/agentkit/policy"
)

// fuzzProxy is a proxy that is never started: its handlers are called directly, so one fuzz
// execution costs no socket.
func fuzzProxy(t testing.TB) *Proxy {
	t.Helper()
	pol, err := policy.Load(referencePolicy)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := newOptions(Config{Rules: pol, Hosts: map[string]string{"portale.interno.test": "127.0.0.1:9"}, KeepDecisions: 16})
	if err != nil {
		t.Fatal(err)
	}
	return &Proxy{opts: opts, rec: newRecorder(io.Discard, opts.keep)}
}

// parseHeaders reads "Name: value" lines; lines that are no header are skipped.
func parseHeaders(block string) http.Header {
	h := http.Header{}
	for _, line := range strings.Split(block, "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r") {
			continue
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), strings.TrimSpace(value))
	}
	return h
}

// FuzzJudgeResponse: whatever headers an upstream sends, the response that goes on carries no
// X-Trapline-* header but the proxy's own, a forged one is refused, and a response the policy
// refuses on its (stripped) headers never passes.
//
//	go test -run '^$' -fuzz FuzzJudgeResponse -fuzztime 2m ./proxy/
func FuzzJudgeResponse(f *testing.F) {
	f.Add("/pratiche/9/visura", "Content-Disposition: attachment; filename=\"setup.exe\"\nX-Trapline-Rule: x", false)
	f.Add("/pratiche/9", "Content-Type: text/html", false)
	f.Add("/pratiche/9", "x-trapline-anything: 1\nContent-Type: application/zip", true)
	f.Add("/x/setup.msi", "Content-Disposition: attachment", true)
	f.Add("/p", "Content-Disposition: attachment; filename*=UTF-8''visura%EF%BC%8Eexe", false)
	p := fuzzProxy(f)
	pol := p.opts.rules.(ResponseRules)
	f.Fuzz(func(t *testing.T, path, headers string, chunked bool) {
		req, err := http.NewRequest("GET", "http://portale.interno.test/"+strings.TrimLeft(path, "/"), nil)
		if err != nil {
			return
		}
		h := parseHeaders(headers)
		forged := false
		for name := range h {
			forged = forged || strings.HasPrefix(name, InternalHeaderPrefix)
		}
		resp := &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader("upstream-body")), ContentLength: 13, Request: req}
		if chunked {
			resp.ContentLength = -1
		}
		out := p.onResponse(resp, &goproxy.ProxyCtx{Req: req})
		_, own := out.Body.(denialBody)
		for name := range out.Header {
			if strings.HasPrefix(textproto.CanonicalMIMEHeaderKey(name), InternalHeaderPrefix) && !(own && name == RuleHeader) {
				t.Fatalf("header %s went on (own denial %v)", name, own)
			}
		}
		if forged && (!own || out.Header.Get(RuleHeader) != string(RuleForgedInternalHeader)) {
			t.Fatalf("a forged internal header passed: %d %v", out.StatusCode, out.Header)
		}
		judged := pol.DecideResponse(policy.Response{URL: req.URL.String(), ContentType: h.Get("Content-Type"), ContentDisposition: h.Get("Content-Disposition")})
		if !judged.Allow && (!own || out.StatusCode != http.StatusForbidden) {
			t.Fatalf("a response the policy refuses (%s) passed: %d", judged.Rule, out.StatusCode)
		}
		if own {
			b, _ := io.ReadAll(out.Body)
			if bytes.Contains(b, []byte("upstream-body")) {
				t.Fatal("a refused response's body went on")
			}
		}
	})
}

// FuzzJudgeRequest: whatever a client sends (method, URL, headers, body), the proxy's verdict is
// the policy's, a refusal is a 403 naming the logged rule, and no logged reason repeats a URL's
// password.
//
//	go test -run '^$' -fuzz FuzzJudgeRequest -fuzztime 2m ./proxy/
func FuzzJudgeRequest(f *testing.F) {
	f.Add("GET", "http://portale.interno.test/pratiche/1", "X-HTTP-Method-Override: DELETE", "")
	f.Add("POST", "http://portale.interno.test/pratiche/3/stato", "Content-Type: application/x-www-form-urlencoded", "stato=chiusa")
	f.Add("POST", "http://portale.interno.test/pratiche/3/stato", "Content-Type: application/json", `[{"query":"mutation A { a }","operationName":"B"}]`)
	f.Add("GET", "http://user:s3cret@portale.interno.test/pratiche/graphql?query=mutation+X+%7B+x+%7D", "", "")
	f.Add("PUT", "http://evil.example.test/x", "X-Method-Override: get", "_method=DELETE")
	p := fuzzProxy(f)
	pol := p.opts.rules
	f.Fuzz(func(t *testing.T, method, rawURL, headers, body string) {
		req, err := http.NewRequest(method, rawURL, strings.NewReader(body))
		if err != nil || !req.URL.IsAbs() {
			return
		}
		req.Header = parseHeaders(headers)
		want := pol.DecideRequest(policy.Request{
			Method: req.Method, URL: req.URL.String(), ContentType: req.Header.Get("Content-Type"),
			Navigation: strings.Contains(strings.ToLower(strings.Join(req.Header.Values("Accept"), ",")), "text/html"),
			Body:       []byte(body)[:min(len(body), p.opts.rules.(BodyLimiter).BodyLimit())], BodyTruncated: len(body) >= p.opts.rules.(BodyLimiter).BodyLimit(),
			Header: req.Header.Clone(),
		})
		_, resp := p.onRequest(req, &goproxy.ProxyCtx{Req: req})
		ds := p.Decisions()
		d := ds[len(ds)-1]
		if resp == nil {
			if !want.Allow || !d.Allowed() {
				t.Fatalf("forwarded, but the policy says %s (%s) and the log %s", want.Rule, want.Reason, d.Rule)
			}
		} else {
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(RuleHeader) != string(d.Rule) || d.Allowed() {
				t.Fatalf("refusal %d %s=%q, logged %+v", resp.StatusCode, RuleHeader, resp.Header.Get(RuleHeader), d)
			}
			if !want.Allow && d.Rule != want.Rule {
				t.Fatalf("logged rule %s, the policy's is %s", d.Rule, want.Rule)
			}
		}
		if u := req.URL.User; u != nil {
			if pw, ok := u.Password(); ok && len(pw) >= 4 && strings.Contains(d.Reason, u.String()) {
				t.Fatalf("the logged reason repeats the user information: %q", d.Reason)
			}
		}
	})
}
