package bypass

import "github.com/trapline/trapline/fixtures"

// channelTechniques are the channels of issue 15, class 5 that the suite runs: requests started where
// the route gate might not look. Whether the gate sees each is measured by the suite's four runs, not
// asserted here by hand (blob-navigation: the gate sees the blob document's requests and holds alone).
func channelTechniques() []Technique {
	return []Technique{
		{
			ID: "blob-navigation", What: "A script navigates the top-level page to a blob: document it built, " +
				"which loads the canary as an image.",
			StartPath: start("blob-navigation"), Probe: canaryProbe("blob-navigation"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("blob-navigation"), "blob-navigation.html",
				pageData{Title: "Anteprima", Target: outside("blob-navigation")})},
		},
	}
}

// UnseenChannels are class-5 channels whose requests Playwright does not report at all, so the
// suite's Loader (which waits for the browser to report the probe) cannot run them: only the proxy
// sees them. They are kept here, with the measurement in Why, for the layer table
// (docs/request-rules.md) until the Loader can settle on the proxy's log.
func UnseenChannels() []Technique {
	return []Technique{
		{
			ID: "speculation-rules", What: "A <script type=speculationrules> asks the browser to prerender and " +
				"prefetch the denied /admin.",
			StartPath: start("speculation-rules"), Probe: adminProbe, Evidence: EvidenceBackend,
			Mounts: []fixtures.Mount{page("GET "+start("speculation-rules"), "speculation.html",
				pageData{Title: "Navigazione rapida"})},
			GateBlind: true,
			Why: "Measured (issue 15): Playwright reports neither the prerender nor the prefetch (no route, no " +
				"request event); the proxy denied GET /admin and /admin/ (deny_path) with both layers on, and with " +
				"its rules off /admin was served twice.",
		},
		{
			ID: "pagehide-beacon", What: "The page sends a beacon to the canary from pagehide and " +
				"visibilitychange while it navigates away.",
			StartPath: start("pagehide-beacon"), Probe: canaryProbe("pagehide-beacon"), Evidence: EvidenceCanary,
			Mounts: []fixtures.Mount{page("GET "+start("pagehide-beacon"), "pagehide-beacon.html",
				pageData{Title: "Uscita", Target: outside("pagehide-beacon")})},
			GateBlind: true,
			Why: "Measured (issue 15): beacons sent from pagehide/visibilitychange while the page is left reach " +
				"neither ctx.Route nor Playwright's request events; the proxy denied both POSTs " +
				"(host_not_allowed) with both layers on, and with its rules off both reached the canary.",
		},
	}
}
