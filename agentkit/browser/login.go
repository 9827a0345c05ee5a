package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/act"
	"github.com/trapline/trapline/agentkit/credentials"
)

// TraceBeforeLoginFile holds the trace recorded before the login tool ran; trace.zip holds the rest.
// The login itself is never traced, so the password typed into the form reaches no trace.
const TraceBeforeLoginFile = "trace-before-login.zip"

// Login is the deterministic login tool: it opens l.URL, checks that the page is that page and that
// its form is what l describes (one username textbox, exactly one password input, named as given),
// fills the account and submits. The planner is not involved and never sees the password; tracing is
// paused while it is typed. Register l.Password as a secret with the recorder's redactor.
func (s *Session) Login(ctx context.Context, l credentials.Login) error {
	if err := l.Validate(); err != nil {
		return err
	}
	want, _ := url.Parse(l.URL)
	if res := s.Goto(ctx, l.URL); res.Delivery == act.NotDelivered {
		return fmt.Errorf("login: open %s: %w", l.URL, res.Err)
	}
	got, err := url.Parse(s.page.URL())
	if err != nil || !strings.EqualFold(got.Host, want.Host) || got.Path != want.Path {
		return fmt.Errorf("login: %w: the page is %s, not the login page %s", credentials.ErrRefused, s.page.URL(), l.URL)
	}
	obs, err := s.observe(ctx, false) // whole: the three fields are used by their refs (refmap.go)
	if err != nil {
		return fmt.Errorf("login: read the login page: %w", err)
	}
	user, errU := obs.Find("textbox", l.UserField)
	pass, errP := obs.Find("textbox", l.PasswordField)
	submit, errS := obs.Find("button", l.Submit)
	if err := errors.Join(errU, errP, errS); err != nil {
		return fmt.Errorf("login: %w: the form is not the expected one: %v", credentials.ErrRefused, err)
	}
	if obs.SecretFields != 1 {
		return fmt.Errorf("login: %w: %d password inputs on the page, want exactly 1", credentials.ErrRefused, obs.SecretFields)
	}
	userLoc, passLoc := s.page.Locator("aria-ref="+user.RawRef), s.page.Locator("aria-ref="+pass.RawRef)
	if t, err := passLoc.GetAttribute("type"); err != nil || t != "password" {
		return fmt.Errorf("login: %w: %q is not a password input", credentials.ErrRefused, l.PasswordField)
	}
	if t, err := userLoc.GetAttribute("type"); err != nil || t == "password" {
		return fmt.Errorf("login: %w: %q is a password input", credentials.ErrRefused, l.UserField)
	}

	to := ms(s.opts.ActionTimeout)
	if s.opts.Trace {
		if err := s.stopTracing(TraceBeforeLoginFile); err != nil {
			return fmt.Errorf("login: pause tracing: %w", err)
		}
	}
	if err := s.stopVideo("login"); err != nil {
		return fmt.Errorf("login: pause video: %w", err)
	}
	defer s.typingTheAccount()()
	err = userLoc.Fill(l.Username, playwright.LocatorFillOptions{Timeout: to})
	if err == nil {
		err = passLoc.Fill(l.Password, playwright.LocatorFillOptions{Timeout: to})
	}
	if err == nil {
		// The submit navigates (to the next page, or back to the form on a wrong account): wait for
		// that navigation, counted from before the click, and its page's load.
		since := s.NavigationEvents()
		if err = s.page.Locator("aria-ref=" + submit.RawRef).Click(playwright.LocatorClickOptions{Timeout: to}); err == nil {
			err = s.WaitNavigated(ctx, since, 0)
		}
	}
	if err == nil {
		// Let the login's requests finish before tracing resumes: the trace's network log records a
		// request (with its form body) when it completes.
		err = s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateNetworkidle, Timeout: ms(s.opts.NavigationTimeout)})
	}
	if s.opts.Trace {
		if terr := s.startTracing(); terr != nil {
			err = errors.Join(err, fmt.Errorf("login: resume tracing: %w", terr))
		}
	}
	if s.opts.Video {
		if verr := s.startVideo(); verr != nil {
			err = errors.Join(err, fmt.Errorf("login: resume video: %w", verr))
		}
	}
	if err != nil {
		return fmt.Errorf("login: submit: %s", s.opts.Recorder.Redactor().String(err.Error()))
	}
	after, err := s.Observe(ctx)
	if err != nil {
		return fmt.Errorf("login: read the page after login: %w", err)
	}
	if after.SecretFields != 0 {
		return fmt.Errorf("login: %w: still asked for a password after submitting (wrong account?)", credentials.ErrRefused)
	}
	return nil
}

// typingTheAccount marks the page driven from here on (the next Observe reads it anew) and the account
// being typed until the returned function is called: no refusal's screenshot shows it (refusal.go).
func (s *Session) typingTheAccount() func() {
	s.dispatches.Add(1)
	s.typingAccount.Store(true)
	return func() { s.typingAccount.Store(false) }
}
