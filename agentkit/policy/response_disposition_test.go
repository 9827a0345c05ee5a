package policy

import (
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
)

type spellingCase struct {
	name   string
	resp   Response
	rule   Rule
	reason string
}

// headerResponse is a response to a URL with no extension carrying the header lines given, in
// order ("Name: value").
func headerResponse(lines ...string) Response {
	h := http.Header{}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, ": ")
		h.Add(k, v)
	}
	return Response{URL: portal + "/pratiche/20/allegato", Header: h}
}

// dispositionCases are the spellings of issue 49.3 under the reference policy: every refused case
// but the Go-parseable ones was allowed before (mime.ParseMediaType dropped the name, or failed on
// Content-Type and left the type unjudged); the allowed ones are ordinary downloads and pages.
func dispositionCases() []spellingCase {
	cd := func(v string) Response { return headerResponse("Content-Disposition: " + v) }
	ct := func(v string) Response { return headerResponse("Content-Type: " + v) }
	return []spellingCase{
		// filename* in a charset Go does not decode, or percent-encoded, or joined from continuations.
		{"filename* in iso-8859-1", cd(`attachment; filename*=iso-8859-1''aggiorna.bat`), RuleResponseDownload, `"aggiorna.bat"`},
		{"filename* in windows-1252 beside a harmless filename", cd(`attachment; filename="visura.pdf"; filename*=windows-1252''aggiorna.bat`), RuleResponseDownload, `"aggiorna.bat"`},
		{"filename* with an escaped dot", cd(`attachment; filename*=UTF-8''aggiorna%2Ebat`), RuleResponseDownload, `"aggiorna.bat"`},
		{"filename* in UTF-16BE", cd(`attachment; filename*=UTF-16BE''%00a%00g%00g%00i%00o%00r%00n%00a%00.%00b%00a%00t`), RuleResponseDownload, `"aggiorna.bat"`},
		{"filename* quoted", cd(`attachment; filename*="UTF-8''aggiorna.bat"`), RuleResponseDownload, `"aggiorna.bat"`},
		{"RFC 2231 continuations, encoded", cd(`attachment; filename*0*=UTF-8''aggi; filename*1*=orna%2Ebat`), RuleResponseDownload, `"aggiorna.bat"`},
		{"RFC 2231 continuations, plain", cd(`attachment; filename*0="aggiorna"; filename*1=".bat"`), RuleResponseDownload, `"aggiorna.bat"`},
		// RFC 2047 words and percent escapes in filename.
		{"RFC 2047 B word", cd(`attachment; filename="=?UTF-8?B?YWdnaW9ybmEuYmF0?="`), RuleResponseDownload, `"aggiorna.bat"`},
		{"RFC 2047 Q word in latin-1", cd(`attachment; filename="=?ISO-8859-1?Q?aggiorna=2Ebat?="`), RuleResponseDownload, `"aggiorna.bat"`},
		{"RFC 2047 word unquoted, between text", cd(`attachment; filename=aggiorna=?UTF-8?Q?=2E?=bat`), RuleResponseDownload, `"aggiorna.bat"`},
		{"percent-escaped filename", cd(`attachment; filename="aggiorna%2Ebat"`), RuleResponseDownload, "an executable"},
		{"unquoted filename with a space", cd(`attachment; filename=aggiorna ora.bat`), RuleResponseDownload, `"aggiorna ora.bat"`},
		{"name instead of filename", cd(`attachment; name="aggiorna.bat"`), RuleResponseDownload, `"aggiorna.bat"`},
		{"no disposition type", cd(`filename="aggiorna.bat"`), RuleResponseDownload, `"aggiorna.bat"`},
		{"unknown disposition type", cd(`scarica; filename=aggiorna.bat`), RuleResponseDownload, `"aggiorna.bat"`},
		// The URL's name, which Chromium falls back to.
		{"a name Chromium ignores, the URL an executable", Response{URL: portal + "/pratiche/20/aggiorna.sh", ContentDisposition: `attachment; name="visura.pdf"`}, RuleResponseDownload, `"aggiorna.sh"`},
		{"a binary type without a disposition, the URL an executable", Response{URL: portal + "/pratiche/20/aggiorna.sh", ContentType: "application/octet-stream"}, RuleResponseDownload, `"aggiorna.sh"`},
		{"a page at an executable's URL is no download", Response{URL: portal + "/pratiche/20/aggiorna.sh", ContentType: "text/html"}, RuleAllowed, ""},
		{"an inline disposition does not name the URL", Response{URL: portal + "/pratiche/20/aggiorna.sh", ContentType: "application/pdf", ContentDisposition: `inline; filename="visura.pdf"`}, RuleAllowed, ""},
		// What cannot be read, or reads two ways, is refused.
		{"filename* in an unknown charset", cd(`attachment; filename="visura.pdf"; filename*=x-trapline''aggiorna.bat`), RuleResponseDownload, "cannot be decoded"},
		{"filename* in a charset WHATWG replaces", cd(`attachment; filename*=iso-2022-kr''aggiorna.bat`), RuleResponseDownload, "cannot be decoded"},
		{"filename* in UTF-7", cd(`attachment; filename*=utf-7''aggiorna+AC4-bat`), RuleResponseDownload, "cannot be decoded"},
		{"filename* without its quotes", cd(`attachment; filename*=aggiorna.bat`), RuleResponseDownload, "charset'language'value"},
		{"an encoded word that does not decode", cd(`attachment; filename="=?UTF-8?B?!!!?="`), RuleResponseDownload, "does not decode"},
		{"an encoded word in an unknown charset", cd(`attachment; filename="=?x-trapline?Q?a.pdf?="`), RuleResponseDownload, "cannot be decoded"},
		{"filename twice", cd(`attachment; filename="visura.pdf"; FILENAME="aggiorna.bat"`), RuleResponseDownload, "given twice"},
		{"a continuation with a gap", cd(`attachment; filename*0="aggiorna"; filename*2=".bat"`), RuleResponseDownload, "segment 1 is missing"},
		{"a parameter without a value", cd(`attachment; scarica; filename="aggiorna.bat"`), RuleResponseDownload, "not name=value"},
		{"two different Content-Disposition headers", headerResponse("Content-Disposition: attachment; filename=visura.pdf", "Content-Disposition: attachment; filename=aggiorna.pdf"), RuleResponseDownload, "2 different Content-Disposition headers"},
		// Content-Type is read as Chromium reads it; parameters never hide the type.
		{"executable type with a parameter Go cannot parse", ct(`application/x-msdownload; trapline`), RuleResponseDownload, `"application/x-msdownload"`},
		{"executable type after a comma", ct(`text/html, application/x-msdownload`), RuleResponseDownload, `"application/x-msdownload"`},
		{"executable type in a second header", headerResponse("Content-Type: text/html", "Content-Type: application/zip"), RuleResponseDownload, `"application/zip"`},
		{"a media type that cannot be read", ct(`text/html charset=utf-8`), RuleResponseDownload, "cannot be read"},
		// Ordinary responses pass.
		{"pdf with both spellings", cd(`attachment; filename="visura.pdf"; filename*=UTF-8''visura%20catastale.pdf`), RuleAllowed, ""},
		{"filename* in latin-1, harmless", cd(`attachment; filename*=iso-8859-1''caf%E9.pdf`), RuleAllowed, ""},
		{"RFC 2047 word, harmless", cd(`attachment; filename="=?UTF-8?Q?visura_2024.pdf?="`), RuleAllowed, ""},
		{"inline", cd(`inline`), RuleAllowed, ""},
		{"the same header twice", headerResponse("Content-Disposition: attachment; filename=visura.pdf", "Content-Disposition: attachment; filename=visura.pdf"), RuleAllowed, ""},
		{"trailing semicolon", cd(`attachment; filename=visura.pdf;`), RuleAllowed, ""},
		{"html with an odd parameter", ct(`text/html; charset=utf-8; trapline`), RuleAllowed, ""},
		{"html with a quoted comma and semicolon", ct(`text/html; x="a,b;c"`), RuleAllowed, ""},
	}
}

func TestDecideResponseReadsEverySpelling(t *testing.T) {
	ref := policies(t)["reference"]
	for _, c := range dispositionCases() {
		t.Run(c.name, func(t *testing.T) {
			d := ref.DecideResponse(c.resp)
			checkDecision(t, d, c.rule, "")
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason %q does not say %q", d.Reason, c.reason)
			}
		})
	}
}

// FuzzContentDisposition: DecideResponse never panics, never allows a response whose
// Content-Disposition Go's mime package reads as naming an executable (a differential floor), and
// never allows one from which parseDisposition itself reads such a name; an executable
// Content-Type is never allowed whatever its parameters.
//
//	go test -run '^$' -fuzz FuzzContentDisposition -fuzztime 60s ./agentkit/policy/
func FuzzContentDisposition(f *testing.F) {
	for _, c := range dispositionCases() {
		f.Add(c.resp.Header.Get("Content-Disposition"), c.resp.Header.Get("Content-Type"))
	}
	ref := mustLoad(f, "reference.yml")
	f.Fuzz(func(t *testing.T, cd, ct string) {
		d := ref.DecideResponse(Response{URL: portal + "/pratiche/20/allegato", ContentDisposition: cd, ContentType: ct})
		if !d.Allow {
			return
		}
		if _, params, err := mime.ParseMediaType(cd); err == nil && isExecutableName(params["filename"]) {
			t.Fatalf("allowed %q, which Go reads as %q", cd, params["filename"])
		}
		disp, err := parseDisposition([]string{cd})
		if err != nil {
			t.Fatalf("allowed %q, which does not parse: %v", cd, err)
		}
		for _, n := range disp.names {
			if isExecutableName(n) {
				t.Fatalf("allowed %q, which names %q", cd, n)
			}
		}
		if mt, _, _ := strings.Cut(ct, ";"); isExecutableType(mt) {
			t.Fatalf("allowed Content-Type %q", ct)
		}
	})
}

func isExecutableName(n string) bool {
	clean := strings.ToLower(strings.TrimRight(NormalizeFileName(n), " ."))
	i := strings.LastIndexByte(clean, '.')
	return i >= 0 && slices.Contains(executableExts, clean[i+1:])
}

func isExecutableType(mt string) bool {
	return slices.Contains(executableTypes, strings.ToLower(strings.TrimSpace(mt)))
}
