package bypass

import (
	"net/http"

	"github.com/trapline/trapline/fixtures"
)

// channelTechniques are the channels of issue 15, class 5 that the suite runs: requests started where
// ctx.Route might not look. Whether the gate sees each is measured by the suite's four runs, not
// asserted here by hand. blob-navigation: the gate sees the blob document's requests. Speculation
// rules and beacons sent while the page is left reach neither ctx.Route nor Playwright's request
// events; the gate closes them inside the page (agentkit/browser/unseen.go), and the Loader settles
// on that guard's refusal or on the proxy's log. A rule set sent in a Speculation-Rules response
// header is not in the document, so the in-page guard cannot see it: gate-blind.
func channelTechniques() []Technique {
	return []Technique{
		{
			ID: "blob-navigation", What: "A script navigates the top-level page to a blob: document it built, " +
				"which loads the canary as an image.",
			StartPath: start("blob-navigation"), Probe: canaryProbe("blob-navigation"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("blob-navigation"), "blob-navigation.html",
				pageData{Title: "Anteprima", Target: outside("blob-navigation")})},
		},
		{
			ID: "speculation-rules", What: "A <script type=speculationrules> asks the browser to prerender and " +
				"prefetch the denied /admin.",
			StartPath: start("speculation-rules"), Probe: adminProbe, Evidence: EvidenceBackend,
			Mounts: []fixtures.Mount{page("GET "+start("speculation-rules"), "speculation.html",
				pageData{Title: "Navigazione rapida"})},
			Why: "Playwright reports neither the prerender nor the prefetch (no route, no request event): the " +
				"route gate's in-page guard takes the rule set out of the document before Chromium acts on it.",
		},
		{
			ID: "pagehide-beacon", What: "The page sends a beacon to the canary from pagehide and " +
				"visibilitychange while it navigates away.",
			StartPath: start("pagehide-beacon"), Probe: canaryProbe("pagehide-beacon"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("pagehide-beacon"), "pagehide-beacon.html",
				pageData{Title: "Uscita", Target: outside("pagehide-beacon")})},
			Why: "Beacons sent while the page is left reach neither ctx.Route nor Playwright's request events: " +
				"the route gate's in-page guard refuses sendBeacon and keepalive fetch from then on.",
		},
		{
			ID: "speculation-header", What: "The start page's Speculation-Rules response header names a rule " +
				"set that asks the browser to prerender and prefetch the denied /admin.",
			StartPath: start("speculation-header"), Probe: adminProbe, Evidence: EvidenceBackend,
			Mounts: []fixtures.Mount{
				speculationHeaderPage("GET "+start("speculation-header"), start("speculation-header")+"/rules.json"),
				rulesJSON("GET " + start("speculation-header") + "/rules.json"),
			},
			GateBlind: true,
			Why: "A rule set named by a Speculation-Rules header is not in the document, so the in-page guard " +
				"cannot take it out, and Playwright reports neither the prerender nor the prefetch: only the " +
				"proxy sees the request.",
		},
	}
}

// UnseenChannels are class-5 channels the suite does not run, each with the reason in Why, for the
// layer table (docs/request-rules.md). Every channel the issue named now runs in All.
func UnseenChannels() []Technique { return nil }

// speculationHeaderPage mounts a plain page whose response names rules in a Speculation-Rules header.
func speculationHeaderPage(pattern, rules string) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Speculation-Rules", `"`+rules+`"`)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_ = pages.ExecuteTemplate(w, "speculation-header.html", pageData{Title: "Navigazione rapida"})
		})
	}}
}

// rulesJSON mounts the rule set speculationHeaderPage names.
func rulesJSON(pattern string) fixtures.Mount {
	return fixtures.Mount{Host: fixtures.PortalHost, Pattern: pattern, Handler: func(*fixtures.State) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/speculationrules+json")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write([]byte(`{"prerender": [{"source": "list", "urls": ["/admin"]}], "prefetch": [{"source": "list", "urls": ["/admin/"]}]}`))
		})
	}}
}
