package cdpfilter

import (
	"encoding/json"
	"strings"
	"testing"
)

// fakeRun owns the contexts run-ctx and agent-ctx and the target run-page; whole, it has the whole
// browser (its own context is the default one, "").
type fakeRun struct{ whole bool }

func (r fakeRun) Context() string {
	if r.whole {
		return ""
	}
	return "run-ctx"
}
func (r fakeRun) Whole() bool              { return r.whole }
func (fakeRun) OwnsContext(id string) bool { return id == "run-ctx" || id == "agent-ctx" }
func (fakeRun) OwnsTarget(id string) bool  { return id == "run-page" }
func (fakeRun) ProxyURL() string           { return "http://127.0.0.1:4000" }
func (fakeRun) DownloadsDir() string       { return "/run/downloads" }

// tcase is one call and what the filter must do with it: want is the action; has are substrings of
// the parameters sent (Allow, Rewrite) or of the refusal (Refuse).
type tcase struct {
	params string
	want   Action
	has    []string
}

// rowCases holds, per method of a table, the cases of its row: the call as allowed or rewritten, and
// the call each check refuses. TestEveryRowHasItsCases fails on a row without cases.
var browserCases = map[string][]tcase{
	"Browser.getVersion":            {{"", Allow, nil}},
	"Browser.getWindowForTarget":    {{`{"targetId":"run-page"}`, Allow, nil}},
	"Browser.getWindowBounds":       {{`{"windowId":1}`, Allow, nil}},
	"Browser.setWindowBounds":       {{`{"windowId":1,"bounds":{}}`, Allow, nil}},
	"Browser.getHistograms":         {{"", Allow, nil}},
	"Browser.getHistogram":          {{`{"name":"x"}`, Allow, nil}},
	"Browser.setDockTile":           {{"{}", Allow, nil}},
	"Browser.executeBrowserCommand": {{`{"commandId":"openTabSearch"}`, Allow, nil}},
	"Target.setDiscoverTargets":     {{`{"discover":true}`, Allow, nil}},
	"Target.setAutoAttach":          {{`{"autoAttach":true,"flatten":true}`, Allow, nil}},
	"Target.autoAttachRelated":      targetCases(`"waitForDebuggerOnStart":false`),
	"Target.getTargets":             {{"", Allow, nil}},
	"Target.detachFromTarget":       {{`{"sessionId":"S"}`, Allow, nil}},
	"Target.getBrowserContexts":     {{"", Allow, nil}},
	"Target.setRemoteLocations":     {{`{"locations":[]}`, Allow, nil}},
	"SystemInfo.getInfo":            {{"", Allow, nil}},
	"SystemInfo.getProcessInfo":     {{"", Allow, nil}},
	"SystemInfo.getFeatureState":    {{`{"featureState":"x"}`, Allow, nil}},
	"Schema.getDomains":             {{"", Allow, nil}},
	"Tracing.start":                 {{"{}", Allow, nil}},
	"Tracing.end":                   {{"", Allow, nil}},
	"Tracing.getCategories":         {{"", Allow, nil}},
	"Tracing.requestMemoryDump":     {{"", Allow, nil}},
	"Tracing.recordClockSyncMarker": {{`{"syncId":"x"}`, Allow, nil}},
	"Target.attachToBrowserTarget":  {{"", Allow, nil}},
	"Browser.close":                 {{"", Close, nil}},
	"Target.createBrowserContext": {
		{"{}", Rewrite, []string{`"proxyServer":"http://127.0.0.1:4000"`, `"proxyBypassList":"\u003c-loopback\u003e"`}},
		{`{"disposeOnDetach":true}`, Rewrite, []string{`"disposeOnDetach":true`, `"proxyServer":"http://127.0.0.1:4000"`}},
		{`{"proxyServer":"direct://"}`, Refuse, []string{"asks for proxyServer"}},
		{`{"proxyServer":"http://127.0.0.1:4000"}`, Refuse, []string{"asks for proxyServer"}},
		{`{"proxyBypassList":"*"}`, Refuse, []string{"asks for proxyBypassList"}},
		{`{"originsWithUniversalNetworkAccess":["http://x"]}`, Refuse, []string{"asks for originsWithUniversalNetworkAccess"}},
	},
	"Browser.setDownloadBehavior": {
		{`{"behavior":"allowAndName","downloadPath":"/tmp/playwright-artifacts","eventsEnabled":true}`, Rewrite,
			[]string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`, `"browserContextId":"run-ctx"`, `"eventsEnabled":true`}},
		{`{"behavior":"deny","browserContextId":"agent-ctx"}`, Rewrite, []string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`, `"browserContextId":"agent-ctx"`}},
		{`{"behavior":"default"}`, Rewrite, []string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`}},
		{`{"behavior":"allow","browserContextId":"other"}`, Refuse, []string{notRunsContext}},
		{`{"behavior":"allow","browserContextId":""}`, Refuse, []string{notRunsContext}},
	},
	"Browser.cancelDownload":       ctxCases(`"guid":"g"`),
	"Browser.grantPermissions":     ctxCases(`"permissions":["geolocation"]`),
	"Browser.setPermission":        ctxCases(`"permission":{"name":"geolocation"},"setting":"granted"`),
	"Browser.resetPermissions":     ctxCases(""),
	"Storage.getCookies":           ctxCases(""),
	"Storage.setCookies":           ctxCases(`"cookies":[]`),
	"Storage.clearCookies":         ctxCases(""),
	"Target.createTarget":          ctxCases(`"url":"about:blank"`),
	"Target.disposeBrowserContext": ctxCases(""),
	"Target.attachToTarget":        targetCases(`"flatten":true`),
	"Target.activateTarget":        targetCases(""),
	"Target.closeTarget":           targetCases(""),
	"Target.getTargetInfo": append(targetCases(""),
		tcase{"", Allow, nil}, tcase{"{}", Allow, nil}, tcase{`{"targetId":""}`, Refuse, []string{notRunsTarget}}),
	"Browser.crash":                       {{"", Refuse, []string{"trapline's"}}},
	"Browser.crashGpuProcess":             {{"", Refuse, []string{"trapline's"}}},
	"Security.setIgnoreCertificateErrors": {{`{"ignore":true}`, Refuse, []string{"browser-wide"}}},
	"Target.exposeDevToolsProtocol":       {{`{"targetId":"run-page"}`, Refuse, []string{"unfiltered"}}},
	"Target.sendMessageToTarget":          {{`{"message":"{}"}`, Refuse, []string{"past the target table"}}},
	"Extensions.loadUnpacked":             {{`{"path":"/x"}`, Refuse, []string{"whole browser only"}}},
	"Extensions.getExtensions":            {{"", Allow, nil}},
	"Extensions.uninstall":                {{`{"id":"x"}`, Refuse, []string{"whole browser only"}}},
	"Page.setDownloadBehavior":            {{`{"behavior":"allow","downloadPath":"/tmp/x"}`, Refuse, []string{"downloads are the run's"}}},
}

var targetCasesByMethod = map[string][]tcase{
	"Browser.getVersion": {{"", Allow, nil}},
	"Page.setDownloadBehavior": {
		{`{"behavior":"allow","downloadPath":"/tmp/x"}`, Rewrite, []string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`}},
		{`{"behavior":"deny"}`, Rewrite, []string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`}},
	},
	"Browser.setDownloadBehavior": {
		{`{"behavior":"deny","downloadPath":"/tmp/x"}`, Rewrite, []string{`"behavior":"allow"`, `"downloadPath":"/run/downloads"`, `"browserContextId":"run-ctx"`}},
		{`{"behavior":"allow","browserContextId":"other"}`, Refuse, []string{notRunsContext}},
	},
	"Browser.grantPermissions":      ctxCases(`"permissions":["geolocation"]`),
	"Browser.setPermission":         ctxCases(`"permission":{"name":"geolocation"},"setting":"granted"`),
	"Browser.resetPermissions":      ctxCases(""),
	"Browser.cancelDownload":        ctxCases(`"guid":"g"`),
	"Target.createBrowserContext":   {{"{}", Refuse, []string{"browser session"}}, {`{"proxyServer":"direct://"}`, Refuse, nil}},
	"Target.disposeBrowserContext":  ctxCases(""),
	"Target.createTarget":           ctxCases(`"url":"about:blank"`),
	"Target.attachToTarget":         targetCases(""),
	"Target.activateTarget":         targetCases(""),
	"Target.closeTarget":            targetCases(""),
	"Target.attachToBrowserTarget":  {{"", Refuse, []string{"refused on a target's session"}}},
	"Target.exposeDevToolsProtocol": {{`{"targetId":"run-page"}`, Refuse, nil}},
	"Target.sendMessageToTarget":    {{`{"message":"{}"}`, Refuse, nil}},
	"Extensions.loadUnpacked":       {{`{"path":"/x"}`, Refuse, nil}},
}

// ctxCases are the cases of a row scoped to the run's contexts: none named goes to the run's, one of
// the run's goes as named, another is refused. extra are the call's other parameters.
func ctxCases(extra string) []tcase {
	with := func(s string) string {
		if extra == "" {
			return "{" + s + "}"
		}
		if s == "" {
			return "{" + extra + "}"
		}
		return "{" + extra + "," + s + "}"
	}
	return []tcase{
		{with(""), Rewrite, []string{`"browserContextId":"run-ctx"`}},
		{with(`"browserContextId":"agent-ctx"`), Rewrite, []string{`"browserContextId":"agent-ctx"`}},
		{with(`"browserContextId":"another-run"`), Refuse, []string{notRunsContext}},
		{with(`"browserContextId":7`), Refuse, []string{notRunsContext}},
	}
}

// targetCases are the cases of a row scoped to the run's targets.
func targetCases(extra string) []tcase {
	sep := ""
	if extra != "" {
		sep = ","
	}
	return []tcase{
		{"{" + extra + sep + `"targetId":"run-page"}`, Allow, []string{`"targetId":"run-page"`}},
		{"{" + extra + sep + `"targetId":"browser"}`, Refuse, []string{notRunsTarget}},
	}
}

func check(t *testing.T, method string, c tcase, d Decision) {
	t.Helper()
	if d.Action != c.want {
		t.Fatalf("%s(%s): %s (%s), want %s", method, c.params, d.Action, d.Refusal, c.want)
	}
	got := string(d.Params)
	if d.Action == Refuse {
		got = d.Refusal
		if !strings.HasPrefix(got, "trapline: "+method+" ") {
			t.Errorf("%s(%s): refusal %q does not name the method", method, c.params, got)
		}
	}
	for _, h := range c.has {
		if !strings.Contains(got, h) {
			t.Errorf("%s(%s): %q has no %q", method, c.params, got, h)
		}
	}
	if d.Action == Rewrite && !json.Valid(d.Params) {
		t.Errorf("%s(%s): rewritten to invalid JSON %q", method, c.params, d.Params)
	}
}

func TestBrowserTable(t *testing.T) {
	for method, cases := range browserCases {
		for _, c := range cases {
			t.Run(method, func(t *testing.T) { check(t, method, c, BrowserCall(method, json.RawMessage(c.params), fakeRun{})) })
		}
	}
}

func TestTargetTable(t *testing.T) {
	for method, cases := range targetCasesByMethod {
		for _, c := range cases {
			t.Run(method, func(t *testing.T) { check(t, method, c, TargetCall(method, json.RawMessage(c.params), fakeRun{})) })
		}
	}
}

// TestEveryRowHasItsCases: a row added to a table without its cases fails, and so does a case of a
// method no row has.
func TestEveryRowHasItsCases(t *testing.T) {
	for _, tb := range []struct {
		name  string
		rows  map[string]Action
		cases map[string][]tcase
	}{{"browser", Methods(true), browserCases}, {"target", Methods(false), targetCasesByMethod}} {
		for m, a := range tb.rows {
			cs := tb.cases[m]
			if len(cs) == 0 {
				t.Errorf("%s table: row %s (%s) has no cases", tb.name, m, a)
			}
			for _, c := range cs {
				if c.want == a || (a != Refuse && c.want == Refuse) {
					continue
				}
				t.Errorf("%s table: %s is a %s row, but a case wants %s", tb.name, m, a, c.want)
			}
		}
		for m := range tb.cases {
			if _, ok := tb.rows[m]; !ok {
				t.Errorf("%s table: cases of %s, which has no row", tb.name, m)
			}
		}
	}
}

// TestUnlistedMethods: the browser table fails closed; the target table passes what stays in its
// target, and refuses the Browser domain it does not list.
func TestUnlistedMethods(t *testing.T) {
	if d := BrowserCall("Network.enable", nil, fakeRun{}); d.Action != Refuse || !strings.Contains(d.Refusal, "not served") {
		t.Errorf("unlisted browser method: %+v", d)
	}
	if d := BrowserCall("Browser.somethingNew", json.RawMessage("{}"), fakeRun{}); d.Action != Refuse {
		t.Errorf("unlisted Browser method: %+v", d)
	}
	for _, m := range []string{"Runtime.evaluate", "Page.navigate", "Network.enable", "Target.setAutoAttach", "Target.getTargetInfo"} {
		if d := TargetCall(m, json.RawMessage(`{"x":1}`), fakeRun{}); d.Action != Allow || string(d.Params) != `{"x":1}` {
			t.Errorf("target %s: %+v, want allowed as sent", m, d)
		}
	}
	for _, m := range []string{"Browser.close", "Browser.crash", "Browser.crashGpuProcess", "Browser.executeBrowserCommand", "Browser.anythingNew"} {
		if d := TargetCall(m, json.RawMessage(`{"behavior":"allow"}`), fakeRun{}); d.Action != Refuse || !strings.Contains(d.Refusal, "target's session") {
			t.Errorf("target %s: %+v, want refused", m, d)
		}
	}
}

// TestCheckedIsSent: a repeated key is sent as the copy the filter checked.
func TestCheckedIsSent(t *testing.T) {
	d := BrowserCall("Target.closeTarget", json.RawMessage(`{"targetId":"browser","targetId":"run-page"}`), fakeRun{})
	if d.Action != Allow || string(d.Params) != `{"targetId":"run-page"}` {
		t.Errorf("repeated targetId: %+v, want the checked copy alone", d)
	}
}

// TestWholeBrowser: in a whole browser's run the agent loads its own extensions, a call that names no
// context stays on the default one (the run's), and the rest of the table holds as in a shared one.
func TestWholeBrowser(t *testing.T) {
	whole := fakeRun{whole: true}
	for _, c := range []struct {
		method, params string
		want           Action
		has            string
	}{
		{"Extensions.loadUnpacked", `{"path":"/x"}`, Allow, `"path":"/x"`},
		{"Extensions.uninstall", `{"id":"x"}`, Allow, `"id":"x"`},
		{"Target.createTarget", `{"url":"about:blank"}`, Rewrite, `{"url":"about:blank"}`},
		{"Browser.setDownloadBehavior", `{"behavior":"deny","downloadPath":"/tmp"}`, Rewrite, `"downloadPath":"/run/downloads"`},
		{"Target.createBrowserContext", `{"proxyServer":"direct://"}`, Refuse, "asks for proxyServer"},
		{"Target.createBrowserContext", `{}`, Rewrite, `"proxyServer":"http://127.0.0.1:4000"`},
		{"Browser.grantPermissions", `{"browserContextId":"another-run","permissions":[]}`, Refuse, notRunsContext},
	} {
		check(t, c.method, tcase{c.params, c.want, []string{c.has}}, BrowserCall(c.method, json.RawMessage(c.params), whole))
	}
	if d := BrowserCall("Browser.setDownloadBehavior", json.RawMessage(`{"behavior":"allow"}`), whole); strings.Contains(string(d.Params), "browserContextId") {
		t.Errorf("whole browser: %s names a context", d.Params)
	}
}

func TestMalformedParametersAreRefused(t *testing.T) {
	for _, raw := range []string{"[1]", "null", `{"a":`, `"x"`} {
		if d := BrowserCall("Target.createTarget", json.RawMessage(raw), fakeRun{}); d.Action != Refuse {
			t.Errorf("Target.createTarget(%s): %+v, want refused", raw, d)
		}
	}
}

func FuzzBrowserCall(f *testing.F) {
	f.Add("Target.createBrowserContext", `{"proxyServer":"direct://"}`)
	f.Add("Browser.setDownloadBehavior", `{"behavior":"deny","downloadPath":"/tmp"}`)
	f.Fuzz(func(t *testing.T, method, raw string) {
		d := BrowserCall(method, json.RawMessage(raw), fakeRun{})
		if d.Action == Refuse {
			return
		}
		var p map[string]any
		if d.Action != Close && len(d.Params) > 0 && json.Unmarshal(d.Params, &p) == nil {
			switch method {
			case "Target.createBrowserContext":
				if p["proxyServer"] != "http://127.0.0.1:4000" || p["proxyBypassList"] != "<-loopback>" {
					t.Fatalf("createBrowserContext passed with %v", p)
				}
			case "Browser.setDownloadBehavior":
				if p["downloadPath"] != "/run/downloads" {
					t.Fatalf("setDownloadBehavior passed with %v", p)
				}
			}
		}
	})
}
