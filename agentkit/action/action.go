// Package action defines the closed set of actions a planner may propose.
//
// An Action is a value: the runtime inspects it, asks the policy, and only then dispatches it.
// Planners exchange actions as JSON:
//
//	{"action":"click","ref":"s3f9k2:e8","reason":"save the status"}
//	{"action":"fill","ref":"s3f9k2:e10","value":"in lavorazione"}
//	{"action":"hover","ref":"s3f9k2:e12","reason":"reveal the row's controls"}
//	{"action":"goto","url":"http://portale.interno.test/pratiche"}
//	{"action":"done","reason":"20 statuses updated"}
package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Kind names an action. The set is closed.
type Kind string

// The action kinds.
const (
	Goto   Kind = "goto"
	Click  Kind = "click"
	Fill   Kind = "fill"
	Select Kind = "select"
	Press  Kind = "press"
	// Hover moves the pointer over an element (mouseenter, :hover) and nothing else: it reveals what
	// a page shows only under the pointer. It is no effect of its own, so deny words do not stop it;
	// its target is resolved fail-closed like any other.
	Hover  Kind = "hover"
	Scroll Kind = "scroll"
	Read   Kind = "read"
	Done   Kind = "done"
)

// Kinds lists every valid kind, in a stable order.
func Kinds() []Kind { return []Kind{Goto, Click, Fill, Select, Press, Hover, Scroll, Read, Done} }

// Action is one proposal of a planner.
type Action struct {
	Kind  Kind   `json:"action"`
	Ref   string `json:"ref,omitempty"`   // qualified ref "snapshot:eN" for click, fill, select, press, hover, read (optional)
	URL   string `json:"url,omitempty"`   // absolute URL for goto
	Value string `json:"value,omitempty"` // text for fill, option for select
	Key   string `json:"key,omitempty"`   // key for press, e.g. "Enter"
	Dir   string `json:"dir,omitempty"`   // "up" or "down" for scroll
	// Within names the target's container (its row, list item or section, by that container's
	// accessible name: "Pratica 8") when its role and name alone name several elements: one
	// "Salva" per row. The fence then checks the target sits in a container so named and that no
	// other element of its role and name does (observe.UniqueWithin); without it such a target is
	// AMBIGUOUS_TARGET.
	Within string `json:"within,omitempty"`
	Reason string `json:"reason,omitempty"` // the planner's own words; never trusted, logged
}

// ErrInvalid is the family of every validation error returned by Validate and Parse.
var ErrInvalid = errors.New("invalid action")

// InvalidError says which field of an action is wrong and why.
type InvalidError struct {
	Field  string
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid action: %s: %s", e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks that the action has the fields its kind needs.
func (a Action) Validate() error {
	// Only the presence of a ref is checked here; whether it names an element of the current
	// observation (qualified, of this snapshot, known) is for the loop to say, under one rule.
	needRef := func() error {
		if a.Ref == "" {
			return invalid("ref", "%s needs a ref", a.Kind)
		}
		return nil
	}
	switch a.Kind {
	case Goto:
		u, err := url.Parse(a.URL)
		if a.URL == "" || err != nil || !u.IsAbs() {
			return invalid("url", "goto needs an absolute URL, got %q", a.URL)
		}
	case Click, Hover:
		return needRef()
	case Fill:
		return needRef()
	case Select:
		if err := needRef(); err != nil {
			return err
		}
		if a.Value == "" {
			return invalid("value", "select needs the option to choose")
		}
	case Press:
		if err := needRef(); err != nil {
			return err
		}
		if a.Key == "" {
			return invalid("key", "press needs a key")
		}
	case Scroll:
		if a.Dir != "up" && a.Dir != "down" {
			return invalid("dir", "scroll needs dir up or down, got %q", a.Dir)
		}
	case Read, Done:
	case "":
		return invalid("action", "missing")
	default:
		return invalid("action", "unknown action %q (want one of %v)", a.Kind, Kinds())
	}
	return nil
}

// Parse decodes one action from JSON strictly: unknown fields, trailing data and invalid
// actions are errors wrapping ErrInvalid.
func Parse(data []byte) (Action, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var a Action
	if err := dec.Decode(&a); err != nil {
		return Action{}, fmt.Errorf("%w: decode: %v", ErrInvalid, err)
	}
	if dec.More() {
		return Action{}, fmt.Errorf("%w: trailing data after the action", ErrInvalid)
	}
	if err := a.Validate(); err != nil {
		return Action{}, err
	}
	return a, nil
}

// ParseOn is Parse for an answer given about the page at pageURL: a goto to a path ("/pratiche/4", as
// the compact observation writes same-origin links) is resolved against pageURL first. Every other
// rule of Parse holds.
func ParseOn(data []byte, pageURL string) (Action, error) {
	a, err := Parse(data)
	if err == nil || !errors.Is(err, ErrInvalid) {
		return a, err
	}
	var raw Action
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&raw) != nil || dec.More() || raw.Kind != Goto || !strings.HasPrefix(raw.URL, "/") || strings.HasPrefix(raw.URL, "//") {
		return a, err
	}
	base, perr := url.Parse(pageURL)
	if perr != nil || !base.IsAbs() {
		return a, err
	}
	ref, perr := url.Parse(raw.URL)
	if perr != nil {
		return a, err
	}
	raw.URL = base.ResolveReference(ref).String()
	b, merr := json.Marshal(raw)
	if merr != nil {
		return a, err
	}
	return Parse(b)
}

// Targets reports whether the action addresses an element by ref.
func (a Action) Targets() bool {
	switch a.Kind {
	case Click, Fill, Select, Press, Hover:
		return true
	case Read:
		return a.Ref != ""
	}
	return false
}

// Mutates reports whether dispatching the action may change the page or the backend (a hover may:
// a mouseenter handler runs page script).
func (a Action) Mutates() bool {
	switch a.Kind {
	case Click, Fill, Select, Press, Hover, Goto:
		return true
	}
	return false
}

// String renders the action for logs.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(string(a.Kind))
	for _, kv := range [][2]string{{"ref", a.Ref}, {"url", a.URL}, {"value", a.Value}, {"key", a.Key}, {"dir", a.Dir}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
		}
	}
	return b.String()
}
