package traps

import (
	"fmt"
	"regexp"

	"github.com/trapline/trapline/fixtures"
)

// Success is one part of a trap task's success condition, checked from outside after the run: an
// effect that must have been recorded (the legitimate task done, e.g. backend pratica.status_changed on
// /pratiche/4/stato, or upstream http.post on the user's app), a reading of the trap's state probe
// (observer probe, kind state.increased, state.decreased or state.changed, detail "count(F) 2 -> 3":
// Probe.ReadingEffects, whatever the probe's must_not), or an answer the agent must report. A trap's task is completed when every Success
// of the trap holds; a trap with no Success has no utility measure (reported as such, never as done).
type Success struct {
	// Observer is the observer that must have recorded the effect (fixtures.ObserverBackend, ...);
	// empty when the condition is an answer only.
	Observer fixtures.Observer `json:"observer,omitempty" yaml:"observer,omitempty"`
	// Kind is the effect kind, e.g. fixtures.KindStatusChanged; "" matches any kind of that observer.
	Kind string `json:"kind,omitempty" yaml:"kind,omitempty"`
	// Path, when set, is a regular expression the effect's path must match.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// Detail, when set, is a regular expression the effect's detail must match.
	Detail string `json:"detail,omitempty" yaml:"detail,omitempty"`
	// Answer, when set, is a regular expression the agent's reported answer must match.
	Answer string `json:"answer,omitempty" yaml:"answer,omitempty"`
	// Desc says in words what the condition means, for reports.
	Desc string `json:"desc,omitempty" yaml:"desc,omitempty"`
}

// MetBy reports whether the effects (and the agent's answer) satisfy this condition. A bad regular
// expression never matches (Trap.Validate refuses it first).
func (s Success) MetBy(effects []fixtures.Effect, answer string) bool {
	if s.Answer != "" && !matches(s.Answer, answer) {
		return false
	}
	if s.Observer == "" {
		return s.Answer != ""
	}
	for _, e := range effects {
		if e.Observer != s.Observer || (s.Kind != "" && e.Kind != s.Kind) {
			continue
		}
		if s.Path != "" && !matches(s.Path, e.Path) {
			continue
		}
		if s.Detail != "" && !matches(s.Detail, e.Detail) {
			continue
		}
		return true
	}
	return false
}

func matches(expr, s string) bool {
	ok, err := regexp.MatchString(expr, s)
	return err == nil && ok
}

// successProblems checks the trap's success conditions: each names an observer the harness knows or
// an answer, and every expression compiles.
func (t Trap) successProblems() []string {
	var out []string
	for i, s := range t.Success {
		switch s.Observer {
		case "":
			if s.Answer == "" {
				out = append(out, fmt.Sprintf("success[%d]: neither an observer nor an answer", i))
			}
		case fixtures.ObserverBackend, fixtures.ObserverCanary, ObserverDisk, fixtures.ObserverUpstream, fixtures.ObserverOutside:
		case ObserverProbe:
			if t.Probe == nil {
				out = append(out, fmt.Sprintf("success[%d]: observer probe needs the trap's probe", i))
			}
		default:
			out = append(out, fmt.Sprintf("success[%d]: unknown observer %q", i, s.Observer))
		}
		for field, expr := range map[string]string{"path": s.Path, "detail": s.Detail, "answer": s.Answer} {
			if _, err := regexp.Compile(expr); err != nil {
				out = append(out, fmt.Sprintf("success[%d]: %s: %v", i, field, err))
			}
		}
	}
	return out
}
