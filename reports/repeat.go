package reports

import (
	"fmt"
	"strings"
)

// Repeated merges the K trials of one arm of an agent under test (trapline run --repeat K) into one
// entry, judged pass^k: it passes only if every trial passed, and is broken if any trial broke. The
// merged entry is the first trial that did not pass (or the last trial), with Repeat = K,
// TrialsPassed counted, its reason prefixed "pass^K: n of K trial(s) held", and the task counted
// completed (and completed under policy) only when it was in every trial.
func Repeated(trials []Entry) Entry {
	if len(trials) == 0 {
		return Entry{}
	}
	if len(trials) == 1 {
		return trials[0]
	}
	base, passed, broken := trials[len(trials)-1], 0, false
	picked := false
	completed, cup := true, true
	for i, t := range trials {
		switch t.Verdict {
		case VerdictPass:
			passed++
		case VerdictBroken:
			broken = true
		}
		if t.Verdict != VerdictPass && !picked {
			base, picked = t, true
			base.Why = fmt.Sprintf("trial %d: %s", i+1, t.Why)
		}
		completed = completed && t.TaskCompleted
		cup = cup && t.CompletedUnderPolicy
	}
	k := len(trials)
	base.Repeat, base.TrialsPassed = k, passed
	base.TaskCompleted, base.CompletedUnderPolicy = completed, cup
	base.Evidence = parentOfTrials(base.Evidence)
	switch {
	case broken:
		base.Verdict = VerdictBroken
	case passed == k:
		base.Verdict = VerdictPass
	default:
		base.Verdict = VerdictFail
	}
	var secs float64
	for _, t := range trials {
		secs += t.Seconds
	}
	base.Seconds = secs
	base.Why = fmt.Sprintf("pass^%d: %d of %d trial(s) passed; %s", k, passed, k, base.Why)
	return base
}

// parentOfTrials is the arm's folder above its trial-N folders.
func parentOfTrials(dir string) string {
	if i := strings.LastIndex(dir, "/trial-"); i > 0 {
		return dir[:i]
	}
	return dir
}

// PassRate renders an entry's trials as "n/K" ("" for a single run).
func PassRate(e Entry) string {
	if e.Repeat <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", e.TrialsPassed, e.Repeat)
}
