package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// traceSecret is typed into a password field, posted as a form and echoed by the page, as the
// control arm of a credential trap does.
const traceSecret = "Pr4tiche-S3greta!"

// tracedLogin runs a session with the full trace (DOM snapshots, screencast) whose page types secret
// into a password input and submits it, redacting the given secrets, and returns the run folder.
func tracedLogin(t *testing.T, b *Browser, secrets ...string) string {
	t.Helper()
	pol, err := policy.Load(filepath.Join("..", "..", "policies", "permissive.yml"))
	if err != nil {
		t.Fatal(err)
	}
	px := portalBehind(t, pol, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, `<!doctype html><title>Ok</title><p id="ok">ricevuto %d byte</p>`, len(body))
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Accesso</title><form method="post" action="/accesso">
<label>Password <input type="password" name="password" id="pw"></label><button>Entra</button></form>`)
	}))
	dir := filepath.Join(t.TempDir(), "run")
	rec, err := evidence.Open(dir, evidence.NewRedactor(secrets...))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := b.NewSession(SessionOptions{ProxyURL: px.URL(), Policy: pol, Recorder: rec, Trace: true, TraceDetail: TraceFull})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res := sess.Goto(ctx, "http://portale.interno.test/accesso"); res.Err != nil {
		t.Fatal(res.Err)
	}
	page := sess.Page()
	if err := page.Locator("#pw").Fill(traceSecret); err != nil {
		t.Fatal(err)
	}
	since := sess.navigationEvents()
	if err := page.Locator("button").Click(); err != nil {
		t.Fatal(err)
	}
	if err := sess.WaitNavigated(ctx, since, 0); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator("#ok").WaitFor(playwright.LocatorWaitForOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTraceHoldsNoSecret: the trace a session writes holds none of the recorder's secrets in any form
// (Playwright records the fill's value, the password input's value in its DOM snapshots and the form
// body in its network log), and the archive is its owner's only. The control, a session without the
// secret registered, shows the trace does record it: without Session.stopTracing's redaction the
// first check fails.
func TestTraceHoldsNoSecret(t *testing.T) {
	needChromium(t)
	b := sharedBrowser(t)
	dir := tracedLogin(t, b, traceSecret)
	leaks, err := evidence.Scan(dir, traceSecret)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) != 0 {
		t.Errorf("the secret is in the run folder: %v", leaks)
	}
	info, err := os.Stat(filepath.Join(dir, evidence.TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != evidence.FileMode {
		t.Errorf("trace.zip has mode %v, want %v", info.Mode().Perm(), evidence.FileMode)
	}

	control := tracedLogin(t, b)
	leaks, err = evidence.Scan(control, traceSecret)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaks) == 0 {
		t.Fatal("control: a trace without the secret registered holds no trace of it: the check above proves nothing")
	}
	t.Logf("control: the unredacted trace holds the secret in %v", leaks)
}
