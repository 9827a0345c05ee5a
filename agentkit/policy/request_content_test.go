package policy

import (
	"bytes"
	"mime/multipart"
	"strings"
	"testing"
)

const formType = "application/x-www-form-urlencoded"

func form(url, body string) Request {
	return Request{Method: "POST", URL: url, ContentType: formType, Body: []byte(body)}
}

func jsonPost(url, body string) Request {
	return Request{Method: "POST", URL: url, ContentType: "application/json", Body: []byte(body)}
}

func multipartBody(t testing.TB, fields map[string]string) (string, []byte) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), b.Bytes()
}

// contentCases are the request-content rules of issue 15 (operation-scoped writes, request deny
// words, outside URL parameters, body cap and unreadable bodies) under the reference policy.
func contentCases() []requestCase {
	stato := portal + "/pratiche/3/stato"
	mpType, mpBody := multipartBody(nil, map[string]string{"stato": "chiusa", "azione": "elimina"})
	return []requestCase{
		{"status write, allowed value", "reference", form(stato, "stato=chiusa"), RuleAllowed, ""},
		{"status write, value with space", "reference", form(stato, "stato=in+lavorazione"), RuleAllowed, ""},
		{"status write, value not allowed", "reference", form(stato, "stato=eliminata"), RuleWriteOperation, ""},
		{"status write, azione in form", "reference", form(stato, "stato=chiusa&azione=elimina"), RuleWriteOperation, ""},
		{"status write, azione alone", "reference", form(stato, "azione=elimina"), RuleWriteOperation, ""},
		{"status write, azione in query", "reference", form(stato+"?azione=elimina", "stato=chiusa"), RuleWriteOperation, ""},
		{"status write, unknown field", "reference", form(stato, "stato=chiusa&extra=1"), RuleWriteOperation, ""},
		{"status write, JSON", "reference", jsonPost(stato, `{"stato":"chiusa"}`), RuleAllowed, ""},
		{"status write, JSON azione", "reference", jsonPost(stato, `{"stato":"chiusa","azione":"elimina"}`), RuleWriteOperation, ""},
		{"status write, JSON nested azione", "reference", jsonPost(stato, `{"stato":{"azione":"elimina"}}`), RuleWriteOperation, ""},
		{"status write, JSON non-scalar value", "reference", jsonPost(stato, `{"stato":["chiusa"]}`), RuleWriteOperation, ""},
		{"status write, multipart azione", "reference", Request{Method: "POST", URL: stato, ContentType: mpType, Body: mpBody}, RuleWriteOperation, ""},
		{"status write, text/plain azione", "reference", Request{Method: "POST", URL: stato, ContentType: "text/plain", Body: []byte("stato=chiusa\r\nazione=elimina\r\n")}, RuleWriteOperation, ""},
		{"status write on the static host", "reference", form("http://static.interno.test/pratiche/3/stato", "stato=chiusa"), RuleWriteNotAllowed, ""},
		{"GET naming the operation on the write's path", "reference", get(stato + "?azione=elimina"), RuleWriteOperation, ""},
		{"GET with a destructive query value", "reference", get(portal + "/pratiche/3?op=elimina"), RuleRequestDenyWord, ""},
		{"GET with a double-encoded destructive value", "reference", get(portal + "/pratiche/3?x=%2565limina"), RuleRequestDenyWord, ""},
		{"GET with a destructive query name", "reference", get(portal + "/pratiche/3?eliminare=1"), RuleRequestDenyWord, ""},
		{"GET with ;-separated destructive value", "reference", get(portal + "/pratiche/3?a=1;op=cancella"), RuleRequestDenyWord, ""},
		{"GET with harmless query", "reference", get(portal + "/pratiche?page=2&q=Pratica+4&stato=chiusa"), RuleAllowed, ""},
		{"GET with a bad escape in the query", "reference", get(portal + "/pratiche?n=%zz"), RuleAllowed, ""},
		{"outside URL param", "reference", get(portal + "/pratiche/vai?u=http://evil.example.test/x"), RuleOutsideURLParam, ""},
		{"outside URL param, encoded", "reference", get(portal + "/pratiche/vai?u=http%3A%2F%2Fevil.example.test%2Fx"), RuleOutsideURLParam, ""},
		{"outside URL param, scheme-relative", "reference", get(portal + "/pratiche/vai?u=//evil.example.test/x"), RuleOutsideURLParam, ""},
		{"outside URL param, backslashes", "reference", get(portal + `/pratiche/vai?u=https:\\evil.example.test`), RuleOutsideURLParam, ""},
		{"outside URL param, userinfo", "reference", get(portal + "/pratiche/vai?u=http://portale.interno.test@evil.example.test/"), RuleOutsideURLParam, ""},
		{"outside URL param, no slashes", "reference", get(portal + "/pratiche/vai?u=http:evil.example.test"), RuleOutsideURLParam, ""},
		{"outside URL param in a JSON body", "reference", jsonPost(stato, `{"stato":"chiusa","next":"http://cdn.external.test/"}`), RuleWriteOperation, ""},
		{"outside URL param, permissive", "permissive", get(portal + "/pratiche/vai?u=http://other.test/x"), RuleAllowed, ""},
		{"inside URL param", "reference", get(portal + "/pratiche/vai?u=http://portale.interno.test/pratiche/2"), RuleAllowed, ""},
		{"relative URL param", "reference", get(portal + "/pratiche/vai?u=/pratiche/2"), RuleAllowed, ""},
		{"not a URL: time", "reference", get(portal + "/pratiche?ora=10:30"), RuleAllowed, ""},
		{"not a URL: mailto", "reference", get(portal + "/pratiche?a=mailto:x@evil.example.test"), RuleAllowed, ""},
		{"oversized body", "reference", form(stato, "stato="+strings.Repeat("a", DefaultMaxBodyBytes)), RuleBodyTooLarge, ""},
		{"truncated body", "reference", Request{Method: "POST", URL: stato, ContentType: formType, BodyTruncated: true}, RuleBodyTooLarge, ""},
		{"malformed form body", "reference", form(stato, "stato=%zz"), RuleBodyUnreadable, ""},
		{"malformed JSON body", "reference", jsonPost(stato, `{"stato":`), RuleBodyUnreadable, ""},
		{"JSON with trailing data", "reference", jsonPost(stato, `{"stato":"chiusa"} {"azione":"elimina"}`), RuleBodyUnreadable, ""},
		{"unknown content type", "reference", Request{Method: "POST", URL: stato, ContentType: "application/octet-stream", Body: []byte("stato=chiusa")}, RuleBodyUnreadable, ""},
		{"body without content type", "reference", Request{Method: "POST", URL: stato, Body: []byte("stato=chiusa")}, RuleBodyUnreadable, ""},
		{"malformed content type", "reference", Request{Method: "POST", URL: stato, ContentType: "text/;;", Body: []byte("x")}, RuleBodyUnreadable, ""},
		{"multipart without boundary", "reference", Request{Method: "POST", URL: stato, ContentType: "multipart/form-data", Body: []byte("x")}, RuleBodyUnreadable, ""},
		{"unreadable body, permissive", "permissive", Request{Method: "POST", URL: stato, ContentType: "application/octet-stream", Body: []byte{0, 1}}, RuleAllowed, ""},
		{"oversized body, permissive", "permissive", Request{Method: "POST", URL: stato, BodyTruncated: true}, RuleAllowed, ""},

		{"path alias ..;", "reference", get(portal + "/pratiche/..;/admin"), RuleDenyPath, ""},
		{"path alias ;params", "reference", get(portal + "/admin;jsessionid=1"), RuleDenyPath, ""},
		{"path alias full-width dots", "reference", get(portal + "/pratiche/%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin"), RuleDenyPath, ""},
		{"path alias full-width letters", "reference", get(portal + "/%EF%BD%81dmin"), RuleDenyPath, ""},
		{"path alias trailing dot", "reference", get(portal + "/admin./"), RuleDenyPath, ""},
		{"path alias trailing space", "reference", get(portal + "/admin%20"), RuleDenyPath, ""},
		{"path alias NUL", "reference", get(portal + "/admin%00.html"), RuleDenyPath, ""},
	}
}

func TestDecideRequestContent(t *testing.T) {
	ps := policies(t)
	for _, c := range contentCases() {
		t.Run(c.name, func(t *testing.T) {
			checkDecision(t, ps[c.policy].DecideRequest(c.req), c.rule, c.reason)
		})
	}
}

// TestRequestReasonsHideValues: a denial never quotes a body value (it may be a secret).
func TestRequestReasonsHideValues(t *testing.T) {
	ref := policies(t)["reference"]
	d := ref.DecideRequest(form(portal+"/pratiche/3/stato", "stato=s3cr3t-eliminato"))
	if d.Allow || strings.Contains(d.Reason, "s3cr3t") {
		t.Errorf("decision %+v quotes the value", d)
	}
}

type responseCase struct {
	name   string
	policy string
	resp   Response
	rule   Rule
}

func responseCases() []responseCase {
	u := portal + "/pratiche/9/visura"
	return []responseCase{
		{"plain page", "reference", Response{URL: u, ContentType: "text/html; charset=utf-8"}, RuleAllowed},
		{"pdf attachment", "reference", Response{URL: u, ContentType: "application/pdf", ContentDisposition: `attachment; filename="visura.pdf"`}, RuleAllowed},
		{"exe by filename", "reference", Response{URL: u, ContentType: "application/octet-stream", ContentDisposition: `attachment; filename="visura.exe"`}, RuleResponseDownload},
		{"exe by filename*", "reference", Response{URL: u, ContentDisposition: `attachment; filename*=UTF-8''visura%2Eexe`}, RuleResponseDownload},
		{"exe with trailing dot", "reference", Response{URL: u, ContentDisposition: `attachment; filename="visura.exe."`}, RuleResponseDownload},
		{"exe full-width dot", "reference", Response{URL: u, ContentDisposition: "attachment; filename*=UTF-8''visura%EF%BC%8Eexe"}, RuleResponseDownload},
		{"inline exe", "reference", Response{URL: u, ContentDisposition: `inline; filename="x.EXE"`}, RuleResponseDownload},
		{"attachment, name from URL", "reference", Response{URL: portal + "/x/setup.msi", ContentDisposition: "attachment"}, RuleResponseDownload},
		{"executable content type", "reference", Response{URL: u, ContentType: "application/x-msdownload"}, RuleResponseDownload},
		{"archive content type", "reference", Response{URL: u, ContentType: "application/zip"}, RuleResponseDownload},
		{"malformed Content-Disposition", "reference", Response{URL: u, ContentDisposition: `attachment; filename="visura.exe`}, RuleResponseDownload},
		{"downloads allowed", "permissive", Response{URL: u, ContentDisposition: `attachment; filename="visura.exe"`}, RuleAllowed},
	}
}

func TestDecideResponse(t *testing.T) {
	ps := policies(t)
	for _, c := range responseCases() {
		t.Run(c.name, func(t *testing.T) {
			checkDecision(t, ps[c.policy].DecideResponse(c.resp), c.rule, "")
		})
	}
}
