package bypass

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit"
	"github.com/trapline/trapline/agentkit/browser"
)

// SettleTimeout bounds how long Loader waits for the probe's request to finish or fail.
const SettleTimeout = 15 * time.Second

// ReasonSettled starts the Reason of a run whose probe request was seen to finish or fail.
const ReasonSettled = "probe settled: "

// Loader returns the agent of a bypass run: it opens the start page, clicks t.Trigger if there is
// one, and waits until the probe's request (or WebSocket) settled, whichever layer stopped it: the
// browser reports that it finished or failed, the route gate (or its in-page guard) recorded a
// violation for it, or the proxy's decision log (the run folder's proxy.jsonl, written as the proxy
// decides) has it. The last two let channels that Playwright never reports (speculation rules,
// beacons sent while the page is left) run like any other. It judges nothing; outside observers do.
//
// The run ends Completed when the probe settled, and Inconclusive when the browser never made the
// request within SettleTimeout: a run in which the technique was not even tried proves nothing, and
// the specs refuse it.
func Loader(t Technique) func(context.Context, *browser.Session, agentkit.Task) (agentkit.Result, error) {
	return func(ctx context.Context, sess *browser.Session, task agentkit.Task) (agentkit.Result, error) {
		start := time.Now()
		page := sess.Page()
		w := newWatch(t.Probe)
		bctx := page.Context()
		bctx.OnRequestFinished(func(r playwright.Request) { w.request(r, "") })
		bctx.OnRequestFailed(func(r playwright.Request) {
			why := "failed"
			if f := r.Failure(); f != nil {
				why = "failed: " + f.Error()
			}
			w.request(r, why)
		})
		onSocket := func(ws playwright.WebSocket) {
			if !t.Probe.MatchURL(ws.URL()) {
				return
			}
			ws.OnClose(func(playwright.WebSocket) { w.settle("websocket " + ws.URL() + " closed") })
			ws.OnSocketError(func(e string) { w.settle("websocket " + ws.URL() + " error: " + e) })
		}
		page.OnWebSocket(onSocket)
		bctx.OnPage(func(p playwright.Page) { p.OnWebSocket(onSocket) })

		res := func(o agentkit.Outcome, reason string) (agentkit.Result, error) {
			return agentkit.Result{Outcome: o, Reason: reason, Actions: 1, Duration: time.Since(start)}, nil
		}
		// Commit is enough: the technique may navigate away before the start page's load event.
		if _, err := page.Goto(task.StartURL, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateCommit}); err != nil {
			return res(agentkit.Inconclusive, fmt.Sprintf("could not open %s: %v", task.StartURL, err))
		}
		if t.Trigger != "" {
			// A click that starts a navigation may report an error once it is dispatched (the
			// navigation failed): the probe tells what happened.
			_ = page.Locator(t.Trigger).Click(playwright.LocatorClickOptions{Timeout: playwright.Float(5000)})
		}
		// The channels Playwright does not report (speculation rules, beacons sent while the page is
		// left) settle on what the layers wrote instead: the gate's refusal or the proxy's decision.
		stop := make(chan struct{})
		defer close(stop)
		go w.pollLayers(stop, sess)
		timer := time.NewTimer(SettleTimeout)
		defer timer.Stop()
		select {
		case how := <-w.done:
			return res(settled(how))
		case <-timer.C:
			return res(agentkit.Inconclusive, fmt.Sprintf("the browser never made the probe request to %s within %s", t.Probe, SettleTimeout))
		case <-ctx.Done():
			return res(agentkit.Inconclusive, "cancelled: "+ctx.Err().Error())
		}
	}
}

// networkChanged is Chromium's error for a connection it aborted because a host interface changed.
const networkChanged = "ERR_NETWORK_CHANGED"

// settled judges how the probe settled. A probe the browser aborted because the host's network changed
// was stopped by no layer under test: the run is Inconclusive, never a technique that was held. (The
// browser package's netlink shim keeps Chromium from seeing such changes; see browser.Options.)
func settled(how string) (agentkit.Outcome, string) {
	if strings.Contains(how, networkChanged) {
		return agentkit.Inconclusive, "the browser aborted the probe because the host's network changed (" +
			networkChanged + "), so no layer under test decided it: " + how
	}
	return agentkit.Completed, ReasonSettled + how
}

// watch turns the first browser event about the probe into one message on done.
type watch struct {
	probe   Probe
	once    sync.Once
	done    chan string
	settled chan struct{} // closed once done has its message
}

func newWatch(p Probe) *watch {
	return &watch{probe: p, done: make(chan string, 1), settled: make(chan struct{})}
}

func (w *watch) request(r playwright.Request, failure string) {
	if !w.probe.MatchURL(r.URL()) {
		return
	}
	if failure != "" {
		w.settle(fmt.Sprintf("%s %s %s", r.Method(), r.URL(), failure))
		return
	}
	// Response() asks the driver: never from the event goroutine.
	go func() {
		how := "finished"
		if resp, err := r.Response(); err == nil && resp != nil {
			how = fmt.Sprintf("finished with HTTP %d", resp.Status())
		}
		w.settle(fmt.Sprintf("%s %s %s", r.Method(), r.URL(), how))
	}()
}

func (w *watch) settle(how string) {
	w.once.Do(func() { w.done <- how; close(w.settled) })
}
