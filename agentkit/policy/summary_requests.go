package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeScope describes the host and operation a write entry is narrowed to, for Summary.
func writeScope(w Write) string {
	var parts []string
	if w.Host != "" {
		parts = append(parts, "on "+hostPort(w.Host, w.Port))
	} else {
		parts = append(parts, "on navigation.allow hosts")
	}
	if w.Form != nil {
		names := slices.Sorted(maps.Keys(w.Form))
		fs := make([]string, len(names))
		for i, k := range names {
			if len(w.Form[k]) == 0 {
				fs[i] = k + "=any"
			} else {
				fs[i] = k + "=" + strings.Join(w.Form[k], "|")
			}
		}
		parts = append(parts, "only fields "+strings.Join(fs, " "))
	}
	if len(w.DenyFields) > 0 {
		parts = append(parts, "denied fields "+strings.Join(w.DenyFields, ", "))
	}
	if len(w.Operations) > 0 {
		// Each entry as it is read (a bare FIELD is "query FIELD"), so a name written before the
		// entries named root fields shows what it now allows.
		ops := make([]string, len(w.Operations))
		for i, e := range w.Operations {
			if kind, field, ok := parseOperationEntry(e); ok {
				ops[i] = kind + " " + field
			} else {
				ops[i] = fmt.Sprintf("%q (allows nothing)", e)
			}
		}
		parts = append(parts, "GraphQL operations by root field: "+strings.Join(ops, ", "))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// requestsSummary prints the requests section.
func (p *Policy) requestsSummary(line func(string, ...any)) {
	r := p.Requests
	outside := "deny"
	if r.OutsideURLParam == Allow {
		outside = "allow"
	} else if len(r.OutsideURLParamPaths) > 0 {
		outside = fmt.Sprintf("deny (allowed on paths %s)", patternList(r.OutsideURLParamPaths))
	}
	unreadable := "denied"
	if r.UnreadableBodies == Allow {
		unreadable = "passed unjudged"
	}
	line("requests: deny words on query and body from %s; outside URL parameters: %s; body cap %d bytes; bodies over the cap, malformed or of an unknown type: %s",
		listOrNone(r.DenyWords), outside, p.maxBody(), unreadable)
}
