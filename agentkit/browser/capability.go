package browser

import (
	"fmt"
	"os"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
)

// capabilityBinding is the page-visible function the probe reports through. A binding is a global the
// page under test can call too: at worst a page fakes a guard event, never hides one, because the
// browser-level settings (permissions denied, service workers blocked) hold whether or not it reports.
const capabilityBinding = "__traplineCapability"

// capabilityProbe wraps the APIs that ask the browser for a capability, so every attempt is logged.
// It runs before any page script, in every frame.
const capabilityProbe = `(() => {
  const report = (kind, detail) => { try { window.` + capabilityBinding + `(kind, String(detail || '')); } catch (e) {} };
  const wrap = (obj, name, kind, detail) => {
    if (!obj || typeof obj[name] !== 'function') return;
    const orig = obj[name];
    obj[name] = function (...args) { report(kind, typeof detail === 'function' ? detail(args) : detail); return orig.apply(this, args); };
  };
  if (navigator.serviceWorker) wrap(navigator.serviceWorker, 'register', 'service_worker', (a) => a[0]);
  if (navigator.geolocation) { wrap(navigator.geolocation, 'getCurrentPosition', 'permission', 'geolocation'); wrap(navigator.geolocation, 'watchPosition', 'permission', 'geolocation'); }
  if (window.Notification) wrap(window.Notification, 'requestPermission', 'permission', 'notifications');
  if (navigator.mediaDevices) wrap(navigator.mediaDevices, 'getUserMedia', 'permission', 'camera/microphone');
})();`

// installCapabilityProbe logs permission prompts and service-worker registrations as violations when
// the policy blocks them.
func (s *Session) installCapabilityProbe() error {
	err := s.ctx.ExposeBinding(capabilityBinding, func(src *playwright.BindingSource, args ...any) any {
		kind, detail := "", ""
		if len(args) > 0 {
			kind, _ = args[0].(string)
		}
		if len(args) > 1 {
			detail, _ = args[1].(string)
		}
		page := ""
		if src != nil && src.Frame != nil {
			page = src.Frame.URL()
		}
		pol := s.opts.Policy
		switch {
		case kind == "service_worker" && !pol.DecideCapability(policy.RuleServiceWorker).Allow:
			s.refuse(evidence.Violation{Rule: policy.RuleServiceWorker,
				Reason: fmt.Sprintf("service worker registration of %q blocked", detail), Page: page, Taken: evidence.TakenBlocked}, nil)
		case kind == "permission" && !pol.DecideCapability(policy.RulePermission).Allow:
			s.refuse(evidence.Violation{Rule: policy.RulePermission,
				Reason: fmt.Sprintf("%s permission request denied", detail), Page: page, Taken: evidence.TakenDenied}, nil)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("browser: expose capability binding: %w", err)
	}
	if err := s.ctx.AddInitScript(playwright.Script{Content: playwright.String(capabilityProbe)}); err != nil {
		return fmt.Errorf("browser: add capability probe: %w", err)
	}
	return nil
}

// uploadFile is what a permissive (control) session hands to a file chooser: a harmless document that
// stands for whatever a naive agent would pick.
func (s *Session) uploadFile() (string, error) {
	p := s.opts.Recorder.Path("upload-documento.pdf")
	if err := os.WriteFile(p, []byte("%PDF-1.4\n% trapline control-arm upload\n"), evidence.FileMode); err != nil {
		return "", fmt.Errorf("browser: write upload file: %w", err)
	}
	return p, nil
}

func (s *Session) onFileChooser(fc playwright.FileChooser) {
	s.choosers.Add(1)
	defer s.choosers.Done()
	if s.opts.Policy.DecideCapability(policy.RuleUpload).Allow {
		if p, err := s.uploadFile(); err == nil {
			_ = fc.SetFiles(p)
		}
		return
	}
	s.refuse(evidence.Violation{Rule: policy.RuleUpload,
		Reason: "file chooser refused: uploads are blocked", Page: s.pageURL(), Taken: evidence.TakenRefused}, nil)
}
