package policy

import (
	"testing"
	"time"
)

// policies loads the policies the decision tables run against.
func policies(t testing.TB) map[string]*Policy {
	ref := mustLoad(t, "reference.yml")
	observe := *ref
	observe.Mode = ModeObserve
	return map[string]*Policy{
		"reference":  ref,
		"example":    mustLoad(t, "annotated.yml"),
		"permissive": mustLoad(t, "permissive.yml"),
		"observe":    &observe,
		"approval":   mustParse(t, approvalPolicy),
		"port": mustParse(t, `version: 1
navigation:
  allow:
    - {host: "portale.interno.test:8080", paths: ["^/"]}
  static_assets: ["static.interno.test:8443"]
`),
	}
}

const (
	portal = "http://portale.interno.test"
	page7  = portal + "/pratiche/7"
)

func button(name string) *Target { return &Target{Role: "button", Name: name} }
func link(name, href string) *Target {
	return &Target{Role: "link", Name: name, Href: href}
}

type decideCase struct {
	name   string
	policy string
	in     Input
	rule   Rule
	reason string // checked when not empty
}

func decideCases() []decideCase {
	ref := "reference"
	spent := func(u Usage) Input { return Input{Kind: KindClick, Target: button("Salva"), Page: page7, Usage: u} }
	return []decideCase{
		{"click named button", ref, Input{Kind: KindClick, Target: button("Salva"), Page: page7}, RuleAllowed, ""},
		{"unknown kind", ref, Input{Kind: "drag", Target: button("Salva")}, RuleUnknownAction, `unknown action kind "drag"`},
		{"empty kind", ref, Input{}, RuleUnknownAction, ""},
		{"kinds are case-sensitive", ref, Input{Kind: "Click", Target: button("Salva")}, RuleUnknownAction, ""},
		{"scroll", ref, Input{Kind: KindScroll, Page: page7}, RuleAllowed, ""},
		{"ask: a money word", "approval", Input{Kind: KindClick, Target: button("Paga ora"), Page: page7}, RuleNeedsApproval, ""},
		{"lying label", ref, Input{Kind: KindClick, Target: &Target{Role: "button", Name: "Salva", Facts: &Facts{VisibleText: "Elimina pratica"}}, Page: page7}, RuleLabelMismatch, ""},
		{"read", ref, Input{Kind: KindRead, Page: page7}, RuleAllowed, ""},
		// A hover is no effect: the name rules that refuse the click do not refuse the pointer over it.
		{"hover a deny-listed button", ref, Input{Kind: KindHover, Target: button("Elimina pratica"), Page: page7}, RuleAllowed, ""},
		{"click the same button", ref, Input{Kind: KindClick, Target: button("Elimina pratica"), Page: page7}, RuleDenyWord, ""},
		{"hover an unnamed row", ref, Input{Kind: KindHover, Target: &Target{Role: "listitem"}, Page: page7}, RuleAllowed, ""},
		{"hover: the action budget still counts", ref, Input{Kind: KindHover, Target: button("Salva"), Page: page7, Usage: Usage{Actions: 50}}, RuleBudgetActions, ""},
		{"hover: no navigation, so no navigation budget", ref, Input{Kind: KindHover, Target: button("Salva"), Page: page7, Usage: Usage{Navigations: 30}}, RuleAllowed, ""},

		// Budgets.
		{"actions spent", ref, spent(Usage{Actions: 50}), RuleBudgetActions, "action budget spent: 50 of 50 actions used"},
		{"actions nearly spent", ref, spent(Usage{Actions: 49}), RuleAllowed, ""},
		{"seconds spent", ref, spent(Usage{Elapsed: 120 * time.Second}), RuleBudgetSeconds, ""},
		{"seconds nearly spent", ref, spent(Usage{Elapsed: 119 * time.Second}), RuleAllowed, ""},
		{"third identical action", ref, spent(Usage{SameActionRepeats: 2}), RuleBudgetRepeats, "the same action was proposed 3 times in a row (limit 3)"},
		{"second identical action", ref, spent(Usage{SameActionRepeats: 1}), RuleAllowed, ""},
		{"stuck", ref, spent(Usage{UnchangedActions: 6}), RuleBudgetStuck, ""},
		{"tokens", ref, spent(Usage{Tokens: 200000}), RuleBudgetTokens, ""},
		{"actions before seconds", ref, spent(Usage{Actions: 50, Elapsed: time.Hour}), RuleBudgetActions, ""},
		{"done ignores budgets", ref, Input{Kind: KindDone, Usage: Usage{Actions: 99, Elapsed: time.Hour}}, RuleAllowed, ""},
		{"read ignores budgets", ref, Input{Kind: KindRead, Usage: Usage{Actions: 99, SameActionRepeats: 9}}, RuleAllowed, ""},
		{"goto navigations spent", ref, Input{Kind: KindGoto, URL: page7, Usage: Usage{Navigations: 30}}, RuleBudgetNav, ""},
		{"link click navigations spent", ref, Input{Kind: KindClick, Target: link("Pratica 8", portal+"/pratiche/8"), Page: page7, Usage: Usage{Navigations: 30}}, RuleBudgetNav, ""},
		{"button click may navigate", ref, spent(Usage{Navigations: 30}), RuleBudgetNav, ""},
		{"fill never navigates", ref, Input{Kind: KindFill, Target: &Target{Role: "textbox", Name: "Note"}, Page: page7, Usage: Usage{Navigations: 30}}, RuleAllowed, ""},

		// Element rules.
		{"unnamed button", ref, Input{Kind: KindClick, Target: button(""), Page: page7}, RuleUnnamedElement, ""},
		{"name of zero-width spaces", ref, Input{Kind: KindClick, Target: button("\u200b\u200b"), Page: page7}, RuleUnnamedElement, ""},
		{"click without target", ref, Input{Kind: KindClick, Page: page7}, RuleUnnamedElement, ""},
		{"press without target", ref, Input{Kind: KindPress, Page: page7}, RuleUnnamedElement, ""},
		{"unnamed, permissive", "permissive", Input{Kind: KindClick, Target: button(""), Page: page7}, RuleAllowed, ""},
		{"deny word", ref, Input{Kind: KindClick, Target: button("Elimina pratica"), Page: page7}, RuleDenyWord,
			`name "Elimina pratica" matches deny word "elimin" (destructive)`},
		{"deny word, example policy", "example", Input{Kind: KindClick, Target: button("Elimina pratica"), Page: page7}, RuleDenyWord, ""},
		{"deny word fullwidth", ref, Input{Kind: KindClick, Target: button("Ｅlimina"), Page: page7}, RuleDenyWord, ""},
		{"deny word zero-width", ref, Input{Kind: KindClick, Target: button("Eli\u200bmina"), Page: page7}, RuleDenyWord, ""},
		{"deny word Cyrillic", ref, Input{Kind: KindClick, Target: button("Еlimina"), Page: page7}, RuleDenyWord, ""},
		{"deny word on fill", ref, Input{Kind: KindFill, Target: &Target{Role: "textbox", Name: "Password"}, Page: page7}, RuleDenyWord, ""},
		{"deny word on select", ref, Input{Kind: KindSelect, Target: &Target{Role: "combobox", Name: "Ruolo utente"}, Page: page7}, RuleDenyWord, ""},
		{"deny word on press", ref, Input{Kind: KindPress, Target: button("Disattiva utente"), Page: page7}, RuleDenyWord, ""},
		{"deny word, permissive", "permissive", Input{Kind: KindClick, Target: button("Elimina pratica"), Page: page7}, RuleAllowed, ""},
		{"fill named textbox", ref, Input{Kind: KindFill, Target: &Target{Role: "textbox", Name: "Note"}, Page: page7}, RuleAllowed, ""},
		{"exception", ref, Input{Kind: KindClick, Target: button("Esporta PDF pratica"), Page: page7}, RuleAllowed, ""},
		{"exception, other page", ref, Input{Kind: KindClick, Target: button("Esporta PDF pratica"), Page: portal + "/pratiche"}, RuleDenyWord, ""},
		{"exception, other role", ref, Input{Kind: KindClick, Target: &Target{Role: "link", Name: "Esporta PDF pratica"}, Page: page7}, RuleDenyWord, ""},
		{"exception, role case", ref, Input{Kind: KindClick, Target: &Target{Role: "Button", Name: "Esporta PDF pratica"}, Page: page7}, RuleAllowed, ""},
		{"exception, look-alike name", ref, Input{Kind: KindClick, Target: button("Еsporta PDF pratica"), Page: page7}, RuleDenyWord, ""},
		{"exception, other name", ref, Input{Kind: KindClick, Target: button("Esporta tutto"), Page: page7}, RuleDenyWord, ""},
		{"exception, page path traversal", ref, Input{Kind: KindClick, Target: button("Esporta PDF pratica"), Page: portal + "/pratiche/7/x/.."}, RuleDenyWord, ""},
		{"exception, bad page URL", ref, Input{Kind: KindClick, Target: button("Esporta PDF pratica"), Page: "http://[::1"}, RuleDenyWord, ""},

		// Navigation.
		{"goto allowed", ref, Input{Kind: KindGoto, URL: page7}, RuleAllowed, ""},
		{"goto deny path", ref, Input{Kind: KindGoto, URL: portal + "/admin"}, RuleDenyPath, `path "/admin" matches deny_paths "^/admin"`},
		{"goto outside", ref, Input{Kind: KindGoto, URL: "http://evil.example.test/"}, RuleHostNotAllowed, ""},
		{"goto without URL", ref, Input{Kind: KindGoto}, RuleInvalidURL, ""},
		{"goto relative URL", ref, Input{Kind: KindGoto, URL: "/pratiche", Page: page7}, RuleAllowed, ""},
		{"link outside", ref, Input{Kind: KindClick, Target: link("Documentazione", "http://evil.example.test/x"), Page: page7}, RuleHostNotAllowed, ""},
		{"link relative to deny path", ref, Input{Kind: KindClick, Target: link("Indietro", "../../admin"), Page: page7}, RuleDenyPath, ""},
		{"link relative allowed", ref, Input{Kind: KindClick, Target: link("Pratica 8", "8"), Page: page7}, RuleAllowed, ""},
		{"link with side effect", ref, Input{Kind: KindClick, Target: link("Apri", "/pratiche/7/elimina?conferma=1"), Page: page7}, RuleDenyPath, ""},
		{"link to javascript:", ref, Input{Kind: KindClick, Target: link("Apri", "javascript:alert(1)"), Page: page7}, RuleSchemeNotAllowed, ""},
		{"press Enter on outside link", ref, Input{Kind: KindPress, Target: link("Apri", "http://evil.example.test/"), Page: page7}, RuleHostNotAllowed, ""},
		{"goto static host", ref, Input{Kind: KindGoto, URL: "http://static.interno.test/app.css"}, RuleHostNotAllowed, ""},
		{"goto outside, permissive", "permissive", Input{Kind: KindGoto, URL: "http://evil.example.test/"}, RuleAllowed, ""},
		{"goto, observe mode", "observe", Input{Kind: KindGoto, URL: page7}, RuleAllowed, ""},
	}
}

func TestDecide(t *testing.T) {
	ps := policies(t)
	for _, c := range decideCases() {
		t.Run(c.name, func(t *testing.T) {
			d := ps[c.policy].Decide(c.in)
			checkDecision(t, d, c.rule, c.reason)
		})
	}
}

type requestCase struct {
	name   string
	policy string
	req    Request
	rule   Rule
	reason string
}

func get(u string) Request { return Request{Method: "GET", URL: u, Navigation: true} }
func sub(u string) Request { return Request{Method: "GET", URL: u} }
func post(u string) Request {
	return Request{Method: "POST", URL: u}
}

func requestCases() []requestCase {
	ref := "reference"
	return []requestCase{
		{"home", ref, get(portal + "/"), RuleAllowed, ""},
		{"no path", ref, get(portal), RuleAllowed, ""},
		{"list", ref, get(portal + "/pratiche?page=2"), RuleAllowed, ""},
		{"https", ref, get("https://portale.interno.test/pratiche/7"), RuleAllowed, ""},
		{"case and trailing dot", ref, get("HTTP://PORTALE.INTERNO.TEST./Pratiche/7"), RuleAllowed, ""},
		{"fullwidth host", ref, get("http://ｐｏｒｔａｌｅ.interno.test/"), RuleAllowed, ""},
		{"method empty is GET", ref, Request{URL: page7}, RuleAllowed, ""},
		{"HEAD", ref, Request{Method: "HEAD", URL: page7}, RuleAllowed, ""},
		{"OPTIONS", ref, Request{Method: "options", URL: page7}, RuleAllowed, ""},

		{"unparsable", ref, get("http://[::1"), RuleInvalidURL, ""},
		{"relative", ref, get("/pratiche"), RuleInvalidURL, ""},
		{"invalid escape", ref, get(portal + "/%zz"), RuleInvalidURL, ""},
		{"double-encoded invalid escape", ref, get(portal + "/%25zz"), RuleInvalidURL, ""},
		{"no host", ref, get("http:///pratiche"), RuleHostNotAllowed, ""},                         // the browser goes to host "pratiche"
		{"http without slashes", ref, get("http:portale.interno.test/pratiche"), RuleAllowed, ""}, // WHATWG: host portale.interno.test
		{"invalid host", ref, get("http://a%20b.test/"), RuleInvalidURL, ""},
		{"backslash in authority", ref, get(`http://evil.example.test\@portale.interno.test/`), RuleHostNotAllowed, ""}, // "\" ends the host

		{"ftp", ref, get("ftp://portale.interno.test/"), RuleSchemeNotAllowed, ""},
		{"file", ref, sub("file:///etc/passwd"), RuleSchemeNotAllowed, ""},
		{"javascript", ref, get("javascript:alert(1)"), RuleSchemeNotAllowed, ""},
		{"ws", ref, sub("ws://portale.interno.test/ws"), RuleSchemeNotAllowed, ""},
		{"about:blank", ref, get("about:blank"), RuleAllowed, ""},
		{"about:config", ref, get("about:config"), RuleSchemeNotAllowed, ""},
		{"data navigation", ref, get("data:text/html,<h1>hi</h1>"), RuleSchemeNotAllowed, ""},
		{"data sub-resource", ref, sub("data:image/png;base64,AAAA"), RuleAllowed, ""},
		{"blob navigation", ref, get("blob:http://portale.interno.test/1234"), RuleSchemeNotAllowed, ""},
		{"blob sub-resource", ref, sub("blob:http://portale.interno.test/1234"), RuleAllowed, ""},

		{"outside host", ref, get("http://evil.example.test/"), RuleHostNotAllowed, `origin http://evil.example.test:80 is not in navigation.allow`},
		{"outside sub-resource", ref, sub("http://cdn.external.test/x.js"), RuleHostNotAllowed, ""},
		{"userinfo", ref, get("http://portale.interno.test@evil.example.test/"), RuleHostNotAllowed, ""},
		{"userinfo with password", ref, get("http://portale.interno.test:pw@evil.example.test/pratiche"), RuleHostNotAllowed, ""},
		{"look-alike suffix", ref, get("http://portale.interno.test.evil.example.test/"), RuleHostNotAllowed, ""},
		{"look-alike prefix", ref, get("http://evilportale.interno.test/"), RuleHostNotAllowed, ""},
		{"IDN look-alike", ref, get("http://pоrtale.interno.test/"), RuleHostNotAllowed, ""}, // Cyrillic о
		{"punycode look-alike", ref, get("http://xn--prtale-wqf.interno.test/"), RuleHostNotAllowed, ""},
		{"encoded dot in host", ref, get("http://portale.interno.test%2eevil.example.test/"), RuleHostNotAllowed, ""}, // decoded: a subdomain of evil
		{"bad punycode", ref, get("http://xn--prtale-3ve.interno.test/"), RuleInvalidURL, ""},
		{"allowed host in query", ref, get("http://evil.example.test/?next=http://portale.interno.test/"), RuleHostNotAllowed, ""},
		{"static sub-resource", ref, sub("http://static.interno.test/app.css"), RuleAllowed, ""},
		{"static navigation", ref, get("http://static.interno.test/app.css"), RuleHostNotAllowed, ""},

		{"deny path", ref, get(portal + "/admin"), RuleDenyPath, ""},
		{"deny path percent-encoded", ref, get(portal + "/%61dmin"), RuleDenyPath, ""},
		{"deny path double-encoded", ref, get(portal + "/%2561dmin"), RuleDenyPath, ""},
		{"deny path dot segments", ref, get(portal + "/pratiche/../admin"), RuleDenyPath, ""},
		{"deny path encoded dot segments", ref, get(portal + "/pratiche/%2e%2e/admin"), RuleDenyPath, ""},
		{"deny path encoded slash", ref, get(portal + "/pratiche%2f..%2fadmin"), RuleDenyPath, ""},
		{"deny path double slash upper case", ref, get(portal + "//ADMIN"), RuleDenyPath, ""},
		{"deny path backslash", ref, get(portal + `/pratiche\..\admin`), RuleDenyPath, ""},
		{"deny path anywhere", ref, get(portal + "/pratiche/7/elimina?conferma=1"), RuleDenyPath, ""},
		{"deny path on sub-resource", ref, sub(portal + "/export/all.csv"), RuleDenyPath, ""},
		{"deny path on static host", ref, sub("http://static.interno.test/admin/x.js"), RuleDenyPath, ""},
		{"deny path on outside host", ref, get("http://evil.example.test/logout"), RuleDenyPath, ""},
		{"path not allowed", ref, get(portal + "/report"), RulePathNotAllowed, `path "/report" is not among the allowed paths of host "portale.interno.test"`},
		{"path prefix is not a match", ref, get(portal + "/pratichex"), RulePathNotAllowed, ""},

		{"allowed write", ref, post(portal + "/pratiche/7/stato"), RuleAllowed, ""},
		{"allowed write, lower-case method", ref, Request{Method: "post", URL: portal + "/pratiche/7/stato"}, RuleAllowed, ""},
		{"write to deny path", ref, post(portal + "/pratiche/7/elimina"), RuleDenyPath, ""},
		{"write not listed", ref, post(portal + "/pratiche/7"), RuleWriteNotAllowed, `POST portale.interno.test/pratiche/7 matches no actions.writes entry`},
		{"write with other method", ref, Request{Method: "DELETE", URL: portal + "/pratiche/7/stato"}, RuleWriteNotAllowed, ""},
		{"write outside", ref, post("http://evil.example.test/collect"), RuleHostNotAllowed, ""},
		{"observe mode write", "observe", post(portal + "/pratiche/7/stato"), RuleObserveMode, ""},
		{"observe mode read", "observe", get(page7), RuleAllowed, ""},

		{"permissive outside", "permissive", get("http://evil.example.test/steal?c=1"), RuleAllowed, ""},
		{"permissive any write", "permissive", Request{Method: "PUT", URL: "http://cdn.external.test/x"}, RuleAllowed, ""},
		{"permissive delete path", "permissive", post(portal + "/pratiche/7/elimina"), RuleAllowed, ""},
		{"permissive unknown host", "permissive", get("http://other.test/"), RuleHostNotAllowed, ""},

		{"port rule", "port", get("http://portale.interno.test:8080/"), RuleAllowed, ""},
		{"port rule, https", "port", get("https://portale.interno.test:8080/"), RuleAllowed, ""},
		{"port rule, default port", "port", get("http://portale.interno.test/"), RuleHostNotAllowed, ""},
		{"port rule, other port", "port", get("http://portale.interno.test:8081/"), RuleHostNotAllowed, ""},
		{"static port", "port", sub("https://static.interno.test:8443/a.css"), RuleAllowed, ""},
		{"static other port", "port", sub("https://static.interno.test/a.css"), RuleHostNotAllowed, ""},
	}
}

func TestDecideRequest(t *testing.T) {
	ps := policies(t)
	for _, c := range requestCases() {
		t.Run(c.name, func(t *testing.T) {
			checkDecision(t, ps[c.policy].DecideRequest(c.req), c.rule, c.reason)
		})
	}
}

type hostCase struct {
	policy, host string
	rule         Rule
}

func hostCases() []hostCase {
	return []hostCase{
		{"reference", "portale.interno.test:443", RuleAllowed},
		{"reference", "PORTALE.interno.test.", RuleAllowed},
		{"reference", "static.interno.test:443", RuleAllowed},
		{"reference", "evil.example.test:443", RuleHostNotAllowed},
		{"reference", "portale.interno.test.evil.example.test:443", RuleHostNotAllowed},
		{"reference", "a b:443", RuleInvalidURL},
		{"permissive", "evil.example.test:443", RuleAllowed},
		{"port", "portale.interno.test:8080", RuleAllowed},
		{"port", "portale.interno.test:443", RuleHostNotAllowed},
		{"port", "portale.interno.test", RuleHostNotAllowed},
		{"port", "static.interno.test:8443", RuleAllowed},
	}
}

func TestDecideHost(t *testing.T) {
	ps := policies(t)
	for _, c := range hostCases() {
		t.Run(c.policy+"/"+c.host, func(t *testing.T) {
			checkDecision(t, ps[c.policy].DecideHost(c.host), c.rule, "")
		})
	}
}

type capabilityCase struct {
	policy string
	rule   Rule
	want   Rule
}

func capabilityCases() []capabilityCase {
	var cs []capabilityCase
	for _, r := range []Rule{RuleDialog, RuleDownload, RuleUpload, RulePopup, RulePermission, RuleServiceWorker} {
		cs = append(cs, capabilityCase{"reference", r, r}, capabilityCase{"permissive", r, RuleAllowed})
	}
	return append(cs, capabilityCase{"reference", RuleDenyPath, RuleUnknownAction})
}

func TestDecideCapability(t *testing.T) {
	ps := policies(t)
	for _, c := range capabilityCases() {
		t.Run(c.policy+"/"+string(c.rule), func(t *testing.T) {
			checkDecision(t, ps[c.policy].DecideCapability(c.rule), c.want, "")
		})
	}
}

// TestRuleCoverage fails when a rule has no case in the tables above.
func TestRuleCoverage(t *testing.T) {
	seen := map[Rule]bool{}
	for _, c := range decideCases() {
		seen[c.rule] = true
	}
	for _, c := range append(append(append(append(requestCases(), contentCases()...), describeCases()...), ambiguousCases()...), graphQLTypeCases()...) {
		seen[c.rule] = true
	}
	for _, c := range hostCases() {
		seen[c.rule] = true
	}
	for _, c := range responseCases() {
		seen[c.rule] = true
	}
	for _, c := range unseenCases() {
		seen[c.rule] = true
	}
	for _, c := range capabilityCases() {
		seen[c.want] = true
	}
	for _, r := range Rules() {
		if !seen[r] {
			t.Errorf("rule %q has no test case", r)
		}
	}
}

func checkDecision(t *testing.T, d Decision, rule Rule, reason string) {
	t.Helper()
	if d.Rule != rule || d.Allow != (rule == RuleAllowed) {
		t.Errorf("decision = %+v, want rule %q", d, rule)
	}
	if d.Reason == "" {
		t.Errorf("decision %+v has no reason", d)
	}
	if reason != "" && d.Reason != reason {
		t.Errorf("reason = %q, want %q", d.Reason, reason)
	}
}
