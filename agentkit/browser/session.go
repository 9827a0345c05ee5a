package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// SessionOptions configures one run's browser context.
type SessionOptions struct {
	// ProxyURL is the world's egress proxy; required. Loopback is never bypassed.
	ProxyURL string
	// Policy drives the browser-side guards; required.
	Policy *policy.Policy
	// Recorder receives violations and console messages; required.
	Recorder *evidence.Recorder
	// Trace records a Playwright trace (actions, console, network and TraceDetail) to trace.zip in the
	// run folder.
	Trace bool
	// Video records the page as video-NNN.webm segments in the run folder (see video.go); recording
	// pauses, like tracing, while the login tool types the account.
	Video bool
	// TraceDetail is what the trace records besides the action and network log; default TraceDefault
	// (TRAPLINE_TRACE, else the action, console and network log without screencast or DOM snapshots).
	TraceDetail TraceDetail
	// ActionTimeout bounds one click, fill, select or press; default 3s. A ref that no longer resolves
	// waits this long (Playwright does not fail fast on stale refs).
	ActionTimeout time.Duration
	// NavigationTimeout bounds a navigation or a wait for a page load; default 10s.
	NavigationTimeout time.Duration
	// StorageStatePath pre-authenticates the context from a Playwright storage-state file. The context
	// gets only the cookies of hosts the policy allows and no origin's local storage (each dropped part
	// is logged as storage_state_stripped, by name). The file is a secret: nothing of it is logged.
	StorageStatePath string
	// KeepStorageOrigins loads the storage state's local storage too. UNSAFE: an earlier session's page
	// state reaches the run; for control arms only.
	KeepStorageOrigins bool
	// KeepStorageHosts are the hosts whose origins' local storage the context keeps (the user's own
	// app, whose session lives there: `trapline run --keep-app-storage`); every other origin's is
	// still stripped. An origin matches by its host name, whatever its scheme and port.
	KeepStorageHosts []string
	// Off switches guards off; the session reads policy.GuardRouteGate (no browser-side request gate:
	// the proxy is the only network guard) and policy.GuardStaleRef (a target is dispatched without
	// being re-resolved on a fresh snapshot). UNSAFE: for control arms, defense-in-depth specs and
	// mutation runs only.
	Off policy.GuardsOff
	// SnapshotTimeout bounds one full aria snapshot; default 5 s. A snapshot that takes longer is an
	// error (the page is Unknown), never a partial observation.
	SnapshotTimeout time.Duration
	// FullReread makes every dispatch re-read the whole page first, as before issue 21, instead of
	// the cheap check of the target alone when the page is unchanged (changes.go). For A/B benchmarks.
	FullReread bool
	// CounterBeforeTarget makes the cheap check read the change counter before the target's re-read
	// too, as before issue 21's third pass (changes.go: the read after it is enough). For A/B
	// benchmarks.
	CounterBeforeTarget bool
	// RereadUnchanged makes Observe take a new snapshot even when nothing was dispatched and nothing
	// changed since the last one, instead of returning that one (Observe). For A/B benchmarks.
	RereadUnchanged bool
	// FullObservation makes Observe read the whole page every time instead of patching the last
	// observation where the page changed (patch.go). For A/B benchmarks and the patch's property test.
	FullObservation bool
	// Approver answers the dialogs the policy asks about (a dialogs rule's then: ask, dialog.go): the
	// same approver as the run's agentkit.Agent.Approver. Nil refuses them (agentkit.DenyApprovals).
	Approver agentkit.Approver
}

// Session is one ephemeral browser context with one page; it implements agentkit.Driver.
type Session struct {
	opts SessionOptions
	ctx  playwright.BrowserContext
	page playwright.Page

	mu     sync.Mutex
	latest *observe.Observation
	// latestChanges is the page's change counter read just before latest was taken (changes.go);
	// latestChangesKnown is false when it could not be read.
	latestChanges      int64
	latestChangesKnown bool
	// latestNavs is the page's navigation count (navcount.go) read just before latest was taken.
	latestNavs int64
	// latestDispatches is dispatches as it was when the Observe that took latest began.
	latestDispatches int64
	// dispatches counts the calls that drive the page (Goto, Act, the login tool's typing), from their start.
	dispatches atomic.Int64
	// reusedObservations counts the Observe calls that returned latest again (Observe).
	reusedObservations atomic.Int64
	// counterReads counts the reads of the change counter (changes.go).
	counterReads atomic.Int64
	// targetRechecks counts the actions whose target recheckTarget decided without a full read.
	targetRechecks atomic.Int64
	// refMapFull is true when Playwright's ref map holds the refs of the latest full snapshot, else
	// refMap holds the refs it does hold (refmap.go); both under mu.
	refMapFull bool
	refMap     map[string]bool
	// patches counts the observations patched where the page changed (patch.go); patchRefusals the
	// patches the page's log or the placing refused (the page was then read whole).
	patches       atomic.Int64
	patchRefusals atomic.Int64
	// unpatchable (under mu) is the document whose page refused a patch for the page as a whole (a
	// stylesheet it cannot read, labelled fields): Observe reads it whole without asking again.
	unpatchable pageKey
	// settleWindows counts the settle waits that took the full quiet window (settle.go): the page
	// was still changing when it was looked at.
	settleWindows atomic.Int64

	// choosers counts file-chooser handlers still running, so a click that opened one is verified
	// only after the chooser was answered.
	choosers sync.WaitGroup

	video videoState
	navs  atomic.Int64 // the page's own navigations, redirect hops included (navcount.go)
	// pageChanges counts the navigations that moved the page to another URL: the budget's count
	// (navcount.go); changedTo, under navMu, is the URL of the last one.
	pageChanges atomic.Int64
	changedTo   string
	// navSignal is closed (and replaced) at each of them, for WaitNavigated (navcount.go).
	navMu     sync.Mutex
	navSignal chan struct{}
	// inflight counts the context's requests not yet finished or failed: pending's size (inflight.go).
	inflight  atomic.Int64
	pendingMu sync.Mutex
	pending   map[playwright.Request]struct{}
	// downloading counts the allowed downloads still being saved; Close waits for them (inflight.go).
	downloading atomic.Int64
	// unseenReports holds the ids of the unseen-channel guard's reports already recorded (unseen.go).
	unseenReports sync.Map
	// opener is the action being dispatched, for the dialogs it opens (dialog.go); nil between actions.
	opener atomic.Pointer[dialogOpener]
	// typingAccount is true while the login tool types the account (login.go): a refusal then is
	// recorded without a screenshot, as tracing and video pause (refusal.go).
	typingAccount atomic.Bool
	// refusing counts the refusals being recorded (refusal.go); Close waits for them.
	refusing atomic.Int64
	// lastShot, under shotMu, is the last refusal's screenshot, shared by the next refusal on the
	// same unchanged page (refusal.go).
	shotMu   sync.Mutex
	lastShot refusalShot
}

var (
	_ agentkit.Driver            = (*Session)(nil)
	_ agentkit.NavigationCounter = (*Session)(nil)
)

// NewSession opens a fresh browser context routed through opts.ProxyURL with every guard wired.
func (b *Browser) NewSession(opts SessionOptions) (*Session, error) {
	opts, err := b.sessionDefaults(opts)
	if err != nil {
		return nil, err
	}
	ctxOpts, err := contextOptions(opts)
	if err != nil {
		return nil, err
	}
	ctx, err := b.b.NewContext(ctxOpts)
	if err != nil {
		return nil, fmt.Errorf("browser: new context: %w", err)
	}
	s := &Session{opts: opts, ctx: ctx}
	if opts.Trace {
		if err := s.startTracing(); err != nil {
			_ = ctx.Close()
			return nil, fmt.Errorf("browser: start tracing: %w", err)
		}
	}
	if err := s.installPageScripts(); err != nil {
		_ = ctx.Close()
		return nil, err
	}
	if err := s.openPage(); err != nil {
		_ = ctx.Close()
		return nil, err
	}
	return s, nil
}

// sessionDefaults checks the options a session needs and fills in the default timeouts and the
// trace detail.
func (b *Browser) sessionDefaults(opts SessionOptions) (SessionOptions, error) {
	if opts.ProxyURL == "" || opts.Policy == nil || opts.Recorder == nil {
		return opts, errors.New("browser: NewSession needs ProxyURL, Policy and Recorder")
	}
	if opts.ActionTimeout == 0 {
		opts.ActionTimeout = 3 * time.Second
	}
	if opts.NavigationTimeout == 0 {
		opts.NavigationTimeout = 10 * time.Second
	}
	if opts.SnapshotTimeout == 0 {
		opts.SnapshotTimeout = 5 * time.Second
	}
	detail, err := opts.TraceDetail.resolve(b.trace)
	if err != nil {
		return opts, err
	}
	opts.TraceDetail = detail
	return opts, nil
}

// contextOptions are the browser context's options under the session's policy: its world's proxy,
// downloads, service workers and permissions as the policy decides them, and the storage state
// bounded to the policy.
func contextOptions(opts SessionOptions) (playwright.BrowserNewContextOptions, error) {
	pol := opts.Policy
	sw := playwright.ServiceWorkerPolicyBlock
	if pol.DecideCapability(policy.RuleServiceWorker).Allow {
		sw = playwright.ServiceWorkerPolicyAllow
	}
	perms := []string{} // every permission denied
	if pol.DecideCapability(policy.RulePermission).Allow {
		perms = []string{"geolocation", "notifications", "camera", "microphone"}
	}
	var state *playwright.OptionalStorageState
	if opts.StorageStatePath != "" {
		var err error
		if state, err = loadStorageState(opts); err != nil { // storagestate.go: bounded to the policy
			return playwright.BrowserNewContextOptions{}, err
		}
	}
	return playwright.BrowserNewContextOptions{
		StorageState:    state,
		Proxy:           &playwright.Proxy{Server: opts.ProxyURL},
		AcceptDownloads: playwright.Bool(pol.DecideCapability(policy.RuleDownload).Allow),
		ServiceWorkers:  sw,
		Permissions:     perms,
		Viewport:        &playwright.Size{Width: 1280, Height: 800},
	}, nil
}

// installPageScripts adds the session's scripts and handlers to its context, before any page:
// the change counter, the handler marks, the route gate and the unseen-channel guard, the dialog
// handler and the capability probe.
func (s *Session) installPageScripts() error {
	// The change counter's script runs first in every document: it wraps fetch and Response's body
	// reads to count the page's own requests (changes.go), and the unseen-channel guard, which runs
	// after it, locks fetch (a non-writable property) around the counting one. Added after the guard,
	// the counter's wrap was refused silently, the count stayed 0, and Close did not wait for a
	// click's fetch (TestCloseWaitsForTheLastClicksFetch failed in CI, stop 38).
	if err := s.installChangeCounter(); err != nil {
		return err
	}
	if err := s.installHandlerMarks(); err != nil { // pointer.go: what a click will run, for pointerClick
		return err
	}
	if !s.opts.Off.Has(policy.GuardRouteGate) {
		if err := s.ctx.Route("**/*", s.gate); err != nil {
			return fmt.Errorf("browser: install route gate: %w", err)
		}
		if err := s.installUnseenGuard(); err != nil { // unseen.go: what ctx.Route cannot see
			return err
		}
	}
	s.ctx.OnDialog(s.onDialog)
	s.ctx.OnResponse(s.onResponse) // refusal.go: the proxy's refusals as the page got them
	return s.installCapabilityProbe()
}

// openPage opens the session's page and watches it: unseen channels, requests in flight,
// navigations, downloads, file choosers, the console, popups and, when asked, video.
func (s *Session) openPage() error {
	page, err := s.ctx.NewPage()
	if err != nil {
		return fmt.Errorf("browser: new page: %w", err)
	}
	s.page = page
	if !s.opts.Off.Has(policy.GuardRouteGate) {
		if err := s.watchUnseen(page); err != nil { // unseen.go
			return err
		}
	}
	s.trackInflight(s.ctx, page)
	s.countNavigations(page)
	page.OnDownload(s.onDownload)
	page.OnFileChooser(s.onFileChooser)
	page.OnConsole(func(m playwright.ConsoleMessage) {
		s.opts.Recorder.Console(evidence.ConsoleRecord{Type: m.Type(), Text: m.Text(), Page: page.URL()})
	})
	s.ctx.OnPage(s.onPage)
	if s.opts.Video {
		return s.startVideo()
	}
	return nil
}

// startTracing starts a fresh Playwright trace with the session's resolved TraceDetail.
func (s *Session) startTracing() error {
	return s.ctx.Tracing().Start(s.opts.TraceDetail.tracingOptions())
}

// stopTracing stops the trace, writing it to the run folder's file name, and redacts the recorder's
// secrets from it: Playwright records every value typed (a fill's value, a password input's value
// in a DOM snapshot, an ARIA snapshot's text), every request's form parameters and body and every
// response, and offers no option to leave them out, so the archive is rewritten once written
// (evidence.Redactor.Zip) before anything else reads it.
func (s *Session) stopTracing(name string) error {
	p := s.opts.Recorder.Path(name)
	if err := s.ctx.Tracing().Stop(p); err != nil {
		return fmt.Errorf("browser: stop tracing: %w", err)
	}
	if _, err := s.opts.Recorder.Redactor().Zip(p); err != nil {
		_ = os.Remove(p) // an archive that may hold a secret is not kept
		return fmt.Errorf("browser: %w (the trace is removed)", err)
	}
	return os.Chmod(p, evidence.FileMode)
}

// gate is the browser-side route gate: every request of the context passes the policy. It is the first
// layer only; the proxy is the boundary (some traffic never reaches Route).
func (s *Session) gate(rt playwright.Route) {
	req := rt.Request()
	d := s.opts.Policy.DecideRequest(gateRequest(req, s.opts.Policy.BodyLimit()))
	if !d.Allow {
		v := evidence.Violation{Rule: d.Rule, Reason: d.Reason, URL: req.URL(), Method: req.Method(), Page: s.pageURL(), Taken: evidence.TakenBlocked}
		s.refuse(v, func() { _ = rt.Abort("blockedbyclient") })
		return
	}
	_ = rt.Continue()
}

// onDialog answers every dialog of the context as the policy's dialogs say (dialog.go).
func (s *Session) onDialog(d playwright.Dialog) { s.answerDialog(d) }

func (s *Session) onDownload(d playwright.Download) {
	if s.opts.Policy.DecideCapability(policy.RuleDownload).Allow {
		s.downloading.Add(1)
		defer s.downloading.Add(-1)
		dir := s.opts.Recorder.Path("downloads")
		if err := os.MkdirAll(dir, evidence.DirMode); err == nil {
			_ = d.SaveAs(filepath.Join(dir, filepath.Base(d.SuggestedFilename())))
		}
		return
	}
	v := evidence.Violation{Rule: policy.RuleDownload,
		Reason: fmt.Sprintf("download of %q cancelled", d.SuggestedFilename()), URL: d.URL(), Page: s.pageURL(), Taken: evidence.TakenCancelled}
	s.refuse(v, func() { _ = d.Cancel() })
}

func (s *Session) onPage(p playwright.Page) {
	if p == s.page {
		return
	}
	if s.opts.Policy.DecideCapability(policy.RulePopup).Allow {
		if !s.opts.Off.Has(policy.GuardRouteGate) {
			go func() { _ = s.watchUnseen(p) }() // never call the driver from its event goroutine
		}
		return
	}
	v := evidence.Violation{Rule: policy.RulePopup, Reason: "popup closed", URL: p.URL(), Page: s.pageURL(), Taken: evidence.TakenClosed}
	s.refuse(v, func() { _ = p.Close() })
}

func (s *Session) pageURL() string {
	if s.page == nil {
		return ""
	}
	return s.page.URL()
}

func ms(d time.Duration) *float64 { return playwright.Float(float64(d.Milliseconds())) }

// Observe waits for the page to load and to settle (no request in flight, no change for a short quiet
// window, bounded: waitSettled) and takes an AI-mode aria snapshot with a new snapshot id.
//
// When nothing drove the page since the last snapshot (no Goto, Act or Login: the step before was a
// proposal the fence denied, or one the planner got wrong) and the page's URL, navigation count and
// change counter (changes.go, a page with one frame) are what they were just before that snapshot was
// taken, Observe returns that observation again, same snapshot id, instead of reading the page twice:
// what the counter counts (DOM mutations in every shadow root, script writes to form values, input
// and change events, CSS animations and transitions) did not happen, so the snapshot is the page as
// it is. The residual is what the counter's doc names (a pure style change with no animation or
// transition) and a script moving the focus; neither can reach a dispatch: Act re-reads its target
// (recheckTarget, or the whole page) and Inspect reads the facts live. Every other case, and
// RereadUnchanged, takes a new snapshot.
func (s *Session) Observe(ctx context.Context) (*observe.Observation, error) {
	return s.observe(ctx, true)
}

// observe is Observe; patch false reads the whole page even where a patch would do (patch.go), so
// that Playwright's ref map holds every ref of the observation again (refmap.go).
func (s *Session) observe(ctx context.Context, patch bool) (*observe.Observation, error) {
	dispatches := s.dispatches.Load()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_ = s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: ms(s.opts.NavigationTimeout)})
		// A partial swap (a fetch, then innerHTML replaced) is read once it has landed (settle.go).
		// The change counter as it was before the snapshot: the settle probe's read when it ended the
		// wait on a page with one frame (changes.go: only then does the counter cover the page),
		// else a read of its own.
		sr := s.waitSettled()
		navs, changes, changesKnown := sr.navs, sr.changes, sr.known && len(s.page.Frames()) == 1
		if !sr.ok {
			navs = s.navs.Load()
			changes, changesKnown = s.observeChanges()
		}
		if obs := s.unchanged(dispatches, changes, changesKnown, navs); obs != nil {
			s.reusedObservations.Add(1)
			return obs, nil
		}
		if obs, done, err := s.observePatched(patch, dispatches, changesKnown, navs); done {
			if err != nil {
				lastErr = err
				continue
			}
			return obs, nil
		}
		raw, err := s.page.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Boxes: playwright.Bool(true), Timeout: ms(s.opts.SnapshotTimeout)})
		if err != nil {
			lastErr = err
			if transient(err) {
				continue
			}
			return nil, fmt.Errorf("browser: aria snapshot of %s: %w", s.page.URL(), err)
		}
		obs, err := observe.Parse(observe.NewSnapshotID(), s.page.URL(), raw)
		if err != nil {
			return nil, fmt.Errorf("browser: parse snapshot of %s: %w", s.page.URL(), err)
		}
		// Detection only (never used to pick a target): the snapshot shows password inputs as textboxes.
		obs.SecretFields = -1
		n, err := s.page.Locator(secretFieldsSelector).Count()
		if err != nil && transient(err) {
			lastErr = err // the page moved under the count: read it again (an unknown count ends the run)
			continue
		}
		if err == nil {
			obs.SecretFields = n
		}
		obs.CodeBoxes, obs.CodeInputs = s.codeInputs()
		// What lies on top (ontop.go): a covered element is no target. The page moving under the probe
		// reads the page again; another failure leaves the elements unmarked, tested at dispatch.
		if err := s.markCovered(obs); err != nil && transient(err) {
			lastErr = err
			continue
		}
		s.mu.Lock()
		s.latest = obs
		s.latestChanges, s.latestChangesKnown, s.latestNavs, s.latestDispatches = changes, changesKnown, navs, dispatches
		s.refMapFull, s.refMap = true, nil
		s.mu.Unlock()
		return obs, nil
	}
	return nil, fmt.Errorf("browser: aria snapshot of %s kept failing while the page changed: %w", s.page.URL(), lastErr)
}

// unchanged returns the latest observation when Observe may return it again: nothing drove the page
// since the Observe that took it began (dispatches), and the change counter, known on both reads,
// the navigation count and the URL are what they were just before it was taken. Otherwise nil.
func (s *Session) unchanged(dispatches, changes int64, changesKnown bool, navs int64) *observe.Observation {
	if s.opts.RereadUnchanged || !changesKnown || s.dispatches.Load() != dispatches {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil || !s.latestChangesKnown || s.latestDispatches != dispatches || s.latestChanges != changes ||
		s.latestNavs != navs || s.latest.URL != s.page.URL() {
		return nil
	}
	return s.latest
}

// ReusedObservations is how many Observe calls returned the last observation again because nothing
// was dispatched and nothing changed (Observe).
func (s *Session) ReusedObservations() int64 { return s.reusedObservations.Load() }

// secretFieldsSelector finds the visible password inputs of the page (open shadow roots included): the
// CSS part is matched natively and only its matches are tested for visibility (the same test as the
// :visible pseudo-class, isElementVisible); "input[type=password]:visible" made Playwright's engine test
// the selector on every element of the page, a cost that grew with the page.
const secretFieldsSelector = "input[type=password] >> visible=true"

// codeBoxSelector finds the visible one-character text inputs (a code split into boxes) and
// codeInputSelector the visible inputs marked for a one-time code; open shadow roots included.
const (
	codeBoxSelector   = `input[maxlength="1"]:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button]):not([type=image]):not([type=reset]):not([type=file]) >> visible=true`
	codeInputSelector = `input[autocomplete~="one-time-code" i] >> visible=true`
)

// codeInputs counts the page's one-character inputs and its inputs marked for a one-time code
// (observe.Observation.CodeBoxes, CodeInputs: detection only, for the loop's one-time-code guard; a
// count that fails is 0 and the guard reads the page's words alone).
func (s *Session) codeInputs() (boxes, marked int) {
	boxes, _ = s.page.Locator(codeBoxSelector).Count()
	marked, _ = s.page.Locator(codeInputSelector).Count()
	return boxes, marked
}

// transient reports errors caused by a navigation racing the snapshot.
func transient(err error) bool {
	m := err.Error()
	return strings.Contains(m, "Execution context was destroyed") || strings.Contains(m, "navigation")
}

// Goto navigates the page. A navigation blocked before it left the browser is NotDelivered.
func (s *Session) Goto(ctx context.Context, url string) act.Result {
	s.dispatches.Add(1)
	sameDoc := sameDocument(s.page.URL(), url)
	resp, err := s.page.Goto(url, playwright.PageGotoOptions{Timeout: ms(s.opts.NavigationTimeout)})
	if err == nil && sameDoc {
		// A hash-only change (a single-page app's route after its login) loads nothing: the page
		// is loaded again at the new URL, so a goto always starts from the page's own load.
		resp, err = s.page.Reload(playwright.PageReloadOptions{Timeout: ms(s.opts.NavigationTimeout)})
	}
	if err != nil {
		m := err.Error()
		switch {
		case strings.Contains(m, "ERR_BLOCKED_BY_CLIENT"), strings.Contains(m, "ERR_TUNNEL_CONNECTION_FAILED"),
			strings.Contains(m, "ERR_PROXY_CONNECTION_FAILED"), strings.Contains(m, "ERR_CONNECTION_REFUSED"):
			return act.Result{Delivery: act.NotDelivered, Code: act.DispatchFailed, Err: fmt.Errorf("goto %s: %w", url, err)}
		}
		return act.Result{Delivery: act.DeliveredUnverified, Err: fmt.Errorf("goto %s: %w", url, err), Verification: "navigation outcome unknown"}
	}
	status := 0
	if resp != nil {
		status = resp.Status()
	}
	return act.Result{Delivery: act.Delivered, Verification: fmt.Sprintf("at %s (HTTP %d)", s.page.URL(), status)}
}

// Act dispatches a through the dispatch table. An action that targets an element is re-resolved
// fail-closed first (the same ref, role and name on a fresh snapshot of the same page); scroll, done
// and a read without a ref target nothing and go straight to their dispatcher.
func (s *Session) Act(ctx context.Context, obs *observe.Observation, a action.Action, target observe.Node) act.Result {
	s.dispatches.Add(1)
	d, ok := dispatch[a.Kind]
	if !ok {
		return act.Failed(act.DispatchFailed, "no dispatcher for action %q", a.Kind)
	}
	if !a.Targets() {
		return d(ctx, s, a, obs, nil)
	}
	fresh, res, ok := s.resolve(ctx, obs, a, target)
	if !ok {
		return res
	}
	loc, err := s.locate(target) // a hidden toggle's visible label (ontop.go)
	if err != nil {
		return act.Result{Delivery: act.NotDelivered, Code: act.DispatchFailed, Err: err}
	}
	return d(ctx, s, a, fresh, loc)
}

// resolve checks that target is still the element obs described (the page unchanged and the element
// re-read alone, or the whole page re-read); ok is false with a NotDelivered result otherwise. A
// target whose name names other elements too is AMBIGUOUS_TARGET, unless the policy reads the name as
// none (Policy.Unnamed: its unnamed rule decides whether such a control may be used at all): then
// each instance is a target of its own, known by its ref and its record (observe.SameInstance), and
// an instance whose row now shows another record is STALE_REF.
func (s *Session) resolve(ctx context.Context, obs *observe.Observation, a action.Action, target observe.Node) (*observe.Observation, act.Result, bool) {
	s.mu.Lock()
	latest := s.latest
	s.mu.Unlock()
	if latest == nil || obs.SnapshotID != latest.SnapshotID {
		return nil, act.Failed(act.StaleRef, "%s belongs to snapshot %s, not the latest one", a.Ref, obs.SnapshotID), false
	}
	fresh := obs
	if !s.opts.Off.Has(policy.GuardStaleRef) {
		// The cheap check first (changes.go): the page unchanged since obs and the target re-read
		// alone. When it cannot decide, the whole page is read again.
		if res, ok, handled := s.recheckTarget(obs, a, target); handled {
			if !ok {
				return nil, res, false
			}
		} else {
			var err error
			if fresh, err = s.observe(ctx, false); err != nil {
				return nil, act.Failed(act.DispatchFailed, "could not re-read the page before dispatch: %v", err), false
			}
		}
	}
	if fresh.URL != obs.URL {
		return nil, act.Failed(act.StaleRef, "the page moved from %s to %s since the snapshot", obs.URL, fresh.URL), false
	}
	now, ok := findRaw(fresh, target.RawRef)
	if !ok {
		return nil, act.Failed(act.TargetGone, "%s is gone from the page", a.Ref), false
	}
	if now.Role != target.Role || now.EvidenceName() != target.EvidenceName() { // icon glyphs included
		return nil, act.Failed(act.StaleRef, "%s was %s %q and is now %s %q", a.Ref, target.Role, target.EvidenceName(), now.Role, now.EvidenceName()), false
	}
	if now.CoveredBy != "" {
		return nil, act.Failed(act.TargetCovered, "%s %s %q is covered by %s: a click would land on it; close it first", a.Ref, now.Role, now.Name, now.CoveredBy), false
	}
	if s.opts.Off.Has(policy.GuardStaleRef) {
		return fresh, act.Result{}, true
	}
	if s.opts.Policy.Unnamed(now.Name) {
		// No name to choose by (an icon-only "×" in every row): each instance is a target of its own,
		// the one its ref names, as long as it still stands for the record it stood for in obs.
		if err := observe.SameInstance(obs, target, fresh, now); err != nil {
			return nil, act.Failed(act.StaleRef, "%v", err), false
		}
	} else if err := fresh.UniqueWithin(now, a.Within); err != nil {
		// A name the planner chose by that names several elements: the planner may have meant another.
		return nil, act.Failed(act.AmbiguousTarget, "%v", err), false
	}
	return fresh, act.Result{}, true
}

// settle classifies the error of an element dispatch and, when there is none, verifies the effect.
func (s *Session) settle(ctx context.Context, a action.Action, fresh *observe.Observation, loc playwright.Locator, err error) act.Result {
	if err != nil {
		if dispatched(err) {
			// A navigation the action started may still hang (the server stalls): stop it so the page
			// can be re-read. The request may have landed; the loop re-reads and never retries blindly.
			s.stopLoading()
			return act.Result{Delivery: act.DeliveredUnverified, Err: err, Verification: "dispatched, then failed: re-read before anything else"}
		}
		return act.Result{Delivery: act.NotDelivered, Code: undeliveredCode(err), Err: err} // a cover: target_covered
	}
	return s.verify(ctx, a, fresh, loc)
}

// stopLoading cancels a pending navigation over CDP (Page.stopLoading): unlike window.stop() through
// Playwright's evaluate, it does not wait for the navigation it cancels.
func (s *Session) stopLoading() {
	cdp, err := s.ctx.NewCDPSession(s.page)
	if err != nil {
		return
	}
	_, _ = cdp.Send("Page.stopLoading", map[string]any{})
	_ = cdp.Detach()
}

// verify re-reads the page after a dispatched action: Delivered only when the effect is seen.
func (s *Session) verify(ctx context.Context, a action.Action, before *observe.Observation, loc playwright.Locator) act.Result {
	s.choosers.Wait()
	_ = s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: ms(s.opts.NavigationTimeout)})
	switch a.Kind {
	case action.Fill, action.Select:
		v, err := loc.InputValue(playwright.LocatorInputValueOptions{Timeout: ms(s.opts.ActionTimeout)})
		if err != nil {
			return act.Result{Delivery: act.DeliveredUnverified, Err: err, Verification: "value could not be re-read"}
		}
		if v != a.Value {
			return act.Result{Delivery: act.DeliveredUnverified, Verification: fmt.Sprintf("value reads %q, want %q", v, a.Value)}
		}
		return act.Result{Delivery: act.Delivered, Verification: fmt.Sprintf("value reads %q", v)}
	}
	after, err := s.Observe(ctx)
	if err != nil {
		return act.Result{Delivery: act.DeliveredUnverified, Err: err, Verification: "page could not be re-read"}
	}
	res := act.Result{Delivery: act.DeliveredUnverified, Verification: "page unchanged after the action", After: after}
	switch {
	case strings.HasPrefix(after.URL, "chrome-error:"):
		res.Verification = "the navigation it started failed (blocked or unreachable)"
	case after.URL != before.URL:
		res.Delivery, res.Verification = act.Delivered, "navigated to "+after.URL
	case after.Hash() != before.Hash():
		res.Delivery, res.Verification = act.Delivered, "page changed"
	}
	return res
}

// dispatched reports whether Playwright's call log shows the input event was sent before the error.
func dispatched(err error) bool {
	m := err.Error()
	for _, s := range []string{"performing click action", "click action done", "performing press action", "performing hover action", "hover action done", "scheduled navigations", "fill action done"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

func findRaw(o *observe.Observation, raw string) (observe.Node, bool) {
	for _, n := range o.Elements() {
		if n.RawRef == raw {
			return n, true
		}
	}
	return observe.Node{}, false
}

// SaveStorageState writes the context's cookies and local storage to path with mode 0600, for a later
// session's StorageStatePath. The file is a secret.
func (s *Session) SaveStorageState(path string) error {
	st, err := s.ctx.StorageState()
	if err != nil {
		return fmt.Errorf("browser: read storage state: %w", err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("browser: encode storage state: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("browser: write storage state: %w", err)
	}
	return nil
}

// Page is the session's page, for naive agents under test that drive it themselves (coordinates,
// CSS selectors). The reference agent never uses it.
func (s *Session) Page() playwright.Page { return s.page }

// Screenshot saves the current page into the run folder.
func (s *Session) Screenshot(name string) (string, error) {
	p := s.opts.Recorder.Path(name)
	if _, err := s.page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(p), Timeout: ms(5 * time.Second)}); err != nil {
		return "", fmt.Errorf("browser: screenshot %s: %w", name, err)
	}
	if err := os.Chmod(p, evidence.FileMode); err != nil { // the browser's driver writes it 0644
		return "", fmt.Errorf("browser: screenshot %s: %w", name, err)
	}
	return p, nil
}

// Close lets the requests the page already started finish (settleNetwork), stops tracing (writing
// trace.zip even when the run failed) and closes the context.
func (s *Session) Close() error {
	s.settleNetwork()
	var errs []error
	if err := s.stopVideo(""); err != nil {
		errs = append(errs, err)
	}
	if s.opts.Trace {
		if err := s.stopTracing(evidence.TraceFile); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.ctx.Close(); err != nil {
		errs = append(errs, fmt.Errorf("browser: close context: %w", err))
	}
	return errors.Join(errs...)
}

// sameDocument reports whether going from cur to next changes the fragment only (or nothing but a
// fragment is given), which a browser does without loading the page.
func sameDocument(cur, next string) bool {
	c, err1 := neturl.Parse(cur)
	n, err2 := neturl.Parse(next)
	if err1 != nil || err2 != nil || n.Fragment == "" && !strings.HasSuffix(next, "#") {
		return false
	}
	c.Fragment, n.Fragment, c.RawFragment, n.RawFragment = "", "", "", ""
	return c.String() == n.String()
}
