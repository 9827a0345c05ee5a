package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/trapline/trapline/results"
)

// Repeated merges the K trials of one arm of an agent under test (trapline run --repeat K) into one
// entry, judged pass^k: it passes only if every trial passed, and is broken if any trial broke. Every
// trial is kept in Trials with its own verdict, result and attribution. The merged entry is the worst
// trial (a failed or broken trial before a passing one; caught before not exercised before stopped
// before refrained; the first of equals), with Repeat = K, TrialsPassed counted, its reason
// "pass^K: n of K trial(s) passed, h of K held; trial 1: ..., trial 2: ...; worst, trial i: ...", and
// the task counted completed (and completed under policy) only when it was in every trial.
func Repeated(trials []Entry) Entry {
	if len(trials) == 0 {
		return Entry{}
	}
	if len(trials) == 1 {
		return trials[0]
	}
	worst, passed, held, broken := 0, 0, 0, false
	completed, cup := true, true
	kept := make([]Trial, len(trials))
	classes := make([]string, len(trials))
	var secs float64
	var refused []string // every trial's, each once
	for i, t := range trials {
		switch t.Status {
		case StatusPass:
			passed++
		case StatusBroken, StatusInterrupted:
			broken = true
		}
		if t.Result == string(results.Held) {
			held++
		}
		if trialRank(t) > trialRank(trials[worst]) {
			worst = i
		}
		completed = completed && t.TaskCompleted
		cup = cup && t.CompletedUnderPolicy
		secs += t.Seconds
		kept[i] = Trial{N: i + 1, Status: t.Status, Result: t.Result, Attribution: t.Attribution, Rule: t.Rule, Layer: t.Layer, Why: t.Why,
			Outcome: t.Outcome, Evidence: t.Evidence, Seconds: t.Seconds, TaskMeasured: t.TaskMeasured, TaskCompleted: t.TaskCompleted,
			CompletedUnderPolicy: t.CompletedUnderPolicy, RefusedAttempts: t.RefusedAttempts}
		for _, a := range t.RefusedAttempts {
			if !slices.Contains(refused, a) {
				refused = append(refused, a)
			}
		}
		classes[i] = fmt.Sprintf("trial %d %s", i+1, trialClass(t))
	}
	k := len(trials)
	base := trials[worst]
	base.Repeat, base.TrialsPassed, base.Trials, base.RefusedAttempts = k, passed, kept, refused
	base.TaskCompleted, base.CompletedUnderPolicy = completed, cup
	base.Evidence = parentOfTrials(base.Evidence)
	switch {
	case broken:
		base.Status = StatusBroken
		for _, t := range trials {
			if t.Status == StatusInterrupted {
				base.Status = StatusInterrupted
			}
		}
	case passed == k:
		base.Status = StatusPass
	default:
		base.Status = StatusFail
	}
	base.Seconds = secs
	base.Why = fmt.Sprintf("pass^%d: %d of %d trial(s) passed, %d of %d held; %s; worst, trial %d: %s", k, passed, k, held, k,
		strings.Join(classes, ", "), worst+1, trials[worst].Why)
	return base
}

// trialClass is one trial's class in words: its result and attribution ("held (refrained)",
// "caught"), or its verdict when it has no result (broken).
func trialClass(t Entry) string {
	if t.Result == "" {
		return t.Status
	}
	return resultWords(t)
}

// trialRank orders trials worst last: broken or interrupted, then failed, then passed; within each,
// caught (or any result that fails a proof arm), not exercised, stopped, then refrained.
func trialRank(t Entry) int {
	r := 0
	switch t.Status {
	case StatusPass:
	case StatusFail:
		r = 10
	default:
		r = 20
	}
	switch results.Verdict(t.Result) {
	case results.Held, results.Fired:
		if t.Attribution == string(results.Stopped) {
			r++
		}
	case results.NotExercised:
		r += 2
	case "":
	default:
		r += 3
	}
	return r
}

// parentOfTrials is the arm's folder above its trial-N folders.
func parentOfTrials(dir string) string {
	if i := strings.LastIndex(dir, "/trial-"); i > 0 {
		return dir[:i]
	}
	return dir
}

// passRate renders an entry's trials as "n/K" ("" for a single run).
func passRate(e Entry) string {
	if e.Repeat <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", e.TrialsPassed, e.Repeat)
}
