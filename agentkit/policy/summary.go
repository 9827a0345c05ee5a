package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Summary describes in a screenful what the policy allows: hosts and paths, static-asset hosts,
// deny paths, writes, element rules, budgets and capability settings. `trapline policy lint`
// prints it.
func (p *Policy) Summary() string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	if p.WritesFromNavigation {
		line("policy %s (the seeds' format: no version, no actions.writes; read as version %d)", p.Source, p.Version)
	} else {
		line("policy %s (version %d)", p.Source, p.Version)
	}
	switch p.Mode {
	case ModeObserve:
		line("mode: observe (read-only: only GET, HEAD and OPTIONS leave the browser, and GraphQL queries an operations rule lists)")
	default:
		line("mode: %s (writes only as listed below)", p.Mode)
	}
	line("on violation: %s", p.Navigation.OnViolation)

	line("navigation allowed to (origins: no scheme is http and https, no port the scheme's default):")
	for _, hr := range p.Navigation.Allow {
		line("  %-28s paths %s", hr.originString(), patternList(hr.Paths))
	}
	line("static assets (sub-resources only): %s", listOrNone(p.Navigation.StaticAssets))
	line("deny paths (win over allow, every host): %s", patternList(p.Navigation.DenyPaths))

	writes := make([]string, len(p.Actions.Writes))
	for i, w := range p.Actions.Writes {
		m := w.Method
		if m == "*" {
			m = "any method"
		}
		writes[i] = m + " " + w.Path.String() + writeScope(w)
	}
	if p.WritesFromNavigation {
		line("writes (from navigation.allow, as the seeds' format means: any method to an allowed path; deny_paths win): %s", listOrNone(writes))
	} else {
		line("writes: %s", listOrNone(writes))
	}
	p.requestsSummary(line)

	line("unnamed elements: %s", p.Actions.Unnamed)
	cats := make([]string, 0, len(p.Actions.DenyWords))
	n := 0
	for c, roots := range p.Actions.DenyWords {
		cats = append(cats, c)
		n += len(roots)
	}
	slices.Sort(cats)
	line("deny words: %d roots in %d categories", n, len(cats))
	for _, c := range cats {
		line("  %-20s %s", c+":", listOrNone(p.Actions.DenyWords[c]))
	}
	if len(p.Actions.Exceptions) > 0 {
		line("exceptions:")
		for _, e := range p.Actions.Exceptions {
			line("  %s %q on pages %s", e.Role, e.Name, e.Page)
		}
	}

	p.approvalSummary(line)
	p.flatSummary(line)
	p.dialogsSummary(line)
	return b.String()
}

func patternList(ps []*Pattern) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return listOrNone(s)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
