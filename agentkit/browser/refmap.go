package browser

import (
	"fmt"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/observe"
)

// Playwright resolves an "aria-ref=" locator against the last aria snapshot taken in the frame, in
// any mode and of any scope: an element-scoped snapshot (a patch's re-read, patch.go; a target's
// recheck, changes.go) leaves only that element's refs resolvable, and a ref outside them makes a
// locator wait for its whole timeout. The session keeps what the map holds (refMapFull, refMap) and
// makes a target's ref resolvable before it is used (ensureRef).

// heldRefs records that Playwright's ref map now holds the refs of raw, an element-scoped snapshot's
// text ("" when the snapshot failed: the map is then not counted on for any ref).
func (s *Session) heldRefs(raw string) {
	held := map[string]bool{}
	if raw != "" {
		if sub, err := observe.Parse("held", "", raw); err == nil {
			for _, n := range sub.Elements() {
				held[n.RawRef] = true
			}
		}
	}
	s.mu.Lock()
	s.refMapFull, s.refMap = false, held
	s.mu.Unlock()
}

// holdsRef reports whether an "aria-ref=" locator of raw resolves without a wait: the map holds the
// latest full snapshot's refs, or raw among an element snapshot's.
func (s *Session) holdsRef(raw string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refMapFull || s.refMap[raw]
}

// targetByRole is the element-scoped AI snapshot of the one element with target's role and exact
// name, for a target whose ref is not in Playwright's ref map: the map holds that element's refs
// after it. A target without a name, or a name two elements share, is an error.
func (s *Session) targetByRole(target observe.Node) (string, error) {
	if target.RawName == "" {
		return "", fmt.Errorf("the target has no name to look it up by")
	}
	loc := s.page.GetByRole(playwright.AriaRole(target.Role), playwright.PageGetByRoleOptions{Name: target.RawName, Exact: playwright.Bool(true)})
	raw, err := loc.AriaSnapshot(playwright.LocatorAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: ms(s.opts.ActionTimeout)})
	if err != nil {
		s.heldRefs("")
		return "", err
	}
	s.heldRefs(raw)
	return raw, nil
}

// ensureRef makes target's ref resolvable: at once when the map holds it; else through the element of
// its role and name when that element shows its ref; else by a snapshot of the whole page, whose text
// is not used (the latest observation stays what it is), which fills the map again.
func (s *Session) ensureRef(target observe.Node) error {
	if s.holdsRef(target.RawRef) {
		return nil
	}
	if _, err := s.targetByRole(target); err == nil && s.holdsRef(target.RawRef) {
		return nil
	}
	if _, err := s.page.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: ms(s.opts.SnapshotTimeout)}); err != nil {
		s.heldRefs("")
		return fmt.Errorf("refill the ref map: %w", err)
	}
	s.mu.Lock()
	s.refMapFull, s.refMap = true, nil
	s.mu.Unlock()
	return nil
}
