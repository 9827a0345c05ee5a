package cdpfilter

import "strings"

// browserTable is every method an agent may call on a browser session; any other is refused.
var browserTable = map[string]row{
	// Reads and settings that reach nothing outside the run's contexts (the run's targets are the
	// only targets there are).
	"Browser.getVersion":                  {action: Allow, why: "a read"},
	"Browser.getWindowForTarget":          {action: Allow, why: "a read"},
	"Browser.getWindowBounds":             {action: Allow, why: "a read"},
	"Browser.setWindowBounds":             {action: Allow, why: "a window's size"},
	"Browser.getHistograms":               {action: Allow, why: "a read"},
	"Browser.getHistogram":                {action: Allow, why: "a read"},
	"Browser.setDockTile":                 {action: Allow, why: "no effect headless"},
	"Browser.executeBrowserCommand":       {action: Allow, why: "tab-search commands only"},
	"Target.setDiscoverTargets":           {action: Allow, why: "events of the run's targets"},
	"Target.setAutoAttach":                {action: Allow, why: "sessions of the run's targets"},
	"Target.autoAttachRelated":            {action: Allow, apply: ofTarget, why: "sessions of the run's targets"},
	"Target.getTargets":                   {action: Allow, why: "a read"},
	"Target.detachFromTarget":             {action: Allow, why: "the agent's own sessions"},
	"Target.getBrowserContexts":           {action: Allow, why: "a read"},
	"Target.setRemoteLocations":           {action: Allow, why: "discovery settings"},
	"SystemInfo.getInfo":                  {action: Allow, why: "a read"},
	"SystemInfo.getProcessInfo":           {action: Allow, why: "a read"},
	"SystemInfo.getFeatureState":          {action: Allow, why: "a read"},
	"Schema.getDomains":                   {action: Allow, why: "a read"},
	"Tracing.start":                       {action: Allow, why: "a trace for the agent"},
	"Tracing.end":                         {action: Allow, why: "a trace for the agent"},
	"Tracing.getCategories":               {action: Allow, why: "a read"},
	"Tracing.requestMemoryDump":           {action: Allow, why: "a read"},
	"Tracing.recordClockSyncMarker":       {action: Allow, why: "a trace marker"},
	"Target.attachToBrowserTarget":        {action: Allow, why: "served by the transport: another browser session, filtered by this table"},
	"Browser.close":                       {action: Close, why: "the browser is trapline's: the agent's close ends its own connection"},
	"Target.createBrowserContext":         {action: Rewrite, apply: throughRunProxy, why: "a new context goes through the run's proxy only"},
	"Browser.setDownloadBehavior":         {action: Rewrite, apply: intoRunFolder, why: "downloads go to the run's folder, allowed, whoever asks"},
	"Browser.cancelDownload":              {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Browser.grantPermissions":            {action: Rewrite, apply: inContext, why: "the run's contexts only: a permission granted is the agent's act, judged by the permission trap"},
	"Browser.setPermission":               {action: Rewrite, apply: inContext, why: "the run's contexts only: as grantPermissions"},
	"Browser.resetPermissions":            {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Storage.getCookies":                  {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Storage.setCookies":                  {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Storage.clearCookies":                {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Target.createTarget":                 {action: Rewrite, apply: inContext, why: "a page in the run's contexts only"},
	"Target.disposeBrowserContext":        {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Target.attachToTarget":               {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.activateTarget":               {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.closeTarget":                  {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.getTargetInfo":                {action: Allow, apply: ownInfo, why: "the browser's own info, or a target of the run's"},
	"Browser.crash":                       {action: Refuse, why: "would end the browser, which is trapline's"},
	"Browser.crashGpuProcess":             {action: Refuse, why: "would break the browser, which is trapline's"},
	"Security.setIgnoreCertificateErrors": {action: Refuse, why: "would ignore certificate errors browser-wide"},
	"Target.exposeDevToolsProtocol":       {action: Refuse, why: "would hand a page an unfiltered DevTools binding"},
	"Target.sendMessageToTarget":          {action: Refuse, why: "would send a message to a target past the target table (use a flat session)"},
	"Extensions.loadUnpacked":             {action: Allow, apply: wholeOnly, why: "an agent that lives in an extension loads it into its whole browser; a shared browser's extension would outlive the run"},
	"Extensions.getExtensions":            {action: Allow, why: "a read"},
	"Extensions.uninstall":                {action: Allow, apply: wholeOnly, why: "the agent's own extensions, in its whole browser"},
	"Page.setDownloadBehavior":            {action: Refuse, why: "downloads are the run's: Browser.setDownloadBehavior is rewritten to the run's folder"},
}

// targetTable lists the methods refused or checked on a target's session; any other goes as it is,
// but a method of a domain in refusedOnTarget is refused.
var targetTable = map[string]row{
	"Browser.getVersion":            {action: Allow, why: "a read"},
	"Page.setDownloadBehavior":      {action: Rewrite, apply: pageIntoRunFolder, why: "the page's context's downloads go to the run's folder, allowed (older Puppeteer scripts)"},
	"Browser.setDownloadBehavior":   {action: Rewrite, apply: intoRunFolder, why: "as on a browser session (chromedp sends it on the page's)"},
	"Browser.grantPermissions":      {action: Rewrite, apply: inContext, why: "as on a browser session: the run's contexts only"},
	"Browser.setPermission":         {action: Rewrite, apply: inContext, why: "as on a browser session: the run's contexts only"},
	"Browser.resetPermissions":      {action: Rewrite, apply: inContext, why: "as on a browser session: the run's contexts only"},
	"Browser.cancelDownload":        {action: Rewrite, apply: inContext, why: "as on a browser session: the run's contexts only"},
	"Target.createBrowserContext":   {action: Refuse, why: "a context is created on a browser session, where the run keeps count of it"},
	"Target.disposeBrowserContext":  {action: Rewrite, apply: inContext, why: "the run's contexts only"},
	"Target.createTarget":           {action: Rewrite, apply: inContext, why: "a page in the run's contexts only"},
	"Target.attachToTarget":         {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.activateTarget":         {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.closeTarget":            {action: Allow, apply: ofTarget, why: "the run's targets only"},
	"Target.attachToBrowserTarget":  {action: Refuse, why: notOnTarget},
	"Target.exposeDevToolsProtocol": {action: Refuse, why: "would hand a page an unfiltered DevTools binding"},
	"Target.sendMessageToTarget":    {action: Refuse, why: "would send a message to a target past the target table (use a flat session)"},
	"Extensions.loadUnpacked":       {action: Refuse, why: notOnTarget},
}

// refusedOnTarget are the domains whose methods a target's session may not call (but those the target
// table lists): the Browser domain reaches the browser and every context (closing, crashing, and
// downloads and permissions, which the table rewrites as on a browser session), whichever session it
// is called on.
var refusedOnTarget = []string{"Browser"}

// targetDomainRow is the row of a method the target table does not list.
func targetDomainRow(method string) (row, bool) {
	domain, _, _ := strings.Cut(method, ".")
	for _, d := range refusedOnTarget {
		if d == domain {
			return row{action: Refuse, why: notOnTarget}, true
		}
	}
	return row{}, false
}

// ownInfo allows Target.getTargetInfo of the browser itself (no targetId) or of a run's target.
func ownInfo(p params, r Run) string {
	if id, _ := p["targetId"].(string); id == "" {
		if _, named := p["targetId"]; !named {
			return ""
		}
	}
	return ofTarget(p, r)
}

// pageIntoRunFolder points Page.setDownloadBehavior (the page's context, named by no parameter) at the
// run's folder, behaviour allow.
func pageIntoRunFolder(p params, r Run) string {
	p["behavior"] = "allow"
	p["downloadPath"] = r.DownloadsDir()
	return ""
}
