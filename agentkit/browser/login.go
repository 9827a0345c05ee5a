package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
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
		return fmt.Errorf("login: step open: %s: %w (the page is %s)", l.URL, res.Err, s.page.URL())
	}
	got, err := url.Parse(s.page.URL())
	if err != nil || !strings.EqualFold(got.Host, want.Host) || got.Path != want.Path {
		return fmt.Errorf("login: step open: %w: the page is %s, not the login page %s", credentials.ErrRefused, s.page.URL(), l.URL)
	}
	obs, err := s.observe(ctx, false) // whole: the three fields are used by their refs (refmap.go)
	if err != nil {
		return fmt.Errorf("login: step read the form: %w (the page is %s)", err, s.page.URL())
	}
	user, errU := obs.Find("textbox", l.UserField)
	pass, errP := obs.Find("textbox", l.PasswordField)
	submit, errS := obs.Find("button", l.Submit)
	if err := errors.Join(errU, errP, errS); err != nil {
		return fmt.Errorf("login: step read the form: %w: the form at %s is not the expected one: %v", credentials.ErrRefused, s.page.URL(), err)
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
		err = s.submitLogin(ctx, l, submit.RawRef)
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
		return fmt.Errorf("login: step submit: %s (the page is %s)", s.opts.Recorder.Redactor().String(err.Error()), s.page.URL())
	}
	return s.checkLogin(ctx, l)
}

// submitLogin presses the form's submit and waits for what follows it: the success check when the
// login has one (a single-page app's login may navigate nowhere), otherwise the navigation the submit
// starts (to the next page, or back to the form on a wrong account), counted from before the click,
// and its page's load.
func (s *Session) submitLogin(ctx context.Context, l credentials.Login, ref string) error {
	to := ms(s.opts.ActionTimeout)
	since := s.navigationEvents()
	if err := s.page.Locator("aria-ref=" + ref).Click(playwright.LocatorClickOptions{Timeout: to}); err != nil {
		return fmt.Errorf("press %q: %w", l.Submit, err)
	}
	if l.Success.URL == "" && l.Success.Text == "" {
		if err := s.WaitNavigated(ctx, since, 0); err != nil {
			return fmt.Errorf("after pressing %q: %w", l.Submit, err)
		}
		return nil
	}
	nav := ms(s.opts.NavigationTimeout)
	if l.Success.URL != "" {
		re, err := regexp.Compile(l.Success.URL)
		if err != nil {
			return fmt.Errorf("success.url: %w", err)
		}
		if err := s.page.WaitForURL(re, playwright.PageWaitForURLOptions{Timeout: nav, WaitUntil: playwright.WaitUntilStateCommit}); err != nil {
			return fmt.Errorf("after pressing %q: the URL did not come to match success.url %q within %s", l.Submit, l.Success.URL, s.opts.NavigationTimeout)
		}
	}
	if l.Success.Text != "" {
		if err := s.page.GetByText(l.Success.Text).First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: nav}); err != nil {
			return fmt.Errorf("after pressing %q: the page did not show success.text %q within %s", l.Submit, l.Success.Text, s.opts.NavigationTimeout)
		}
	}
	return nil
}

// checkLogin is the login's last step: the page after it asks for no password and passes the
// login's success check (checked again: the page may have moved on since the submit's wait).
func (s *Session) checkLogin(ctx context.Context, l credentials.Login) error {
	after, err := s.Observe(ctx)
	if err != nil {
		return fmt.Errorf("login: step check: read the page after login: %w (the page is %s)", err, s.page.URL())
	}
	if after.SecretFields != 0 {
		return fmt.Errorf("login: step check: %w: the page %s still asks for a password after submitting (wrong account?)", credentials.ErrRefused, s.page.URL())
	}
	if l.Success.URL != "" {
		if re, err := regexp.Compile(l.Success.URL); err != nil || !re.MatchString(s.page.URL()) {
			return fmt.Errorf("login: step check: %w: the page is %s, which does not match success.url %q", credentials.ErrRefused, s.page.URL(), l.Success.URL)
		}
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
