package policy

import "strings"

// DecideRequest rules on one network request (route gate and proxy share it). In order:
//   - the URL must parse, as the browser parses it (ParseURL: the WHATWG URL Standard), and be
//     absolute (RuleInvalidURL);
//   - scheme: http and https go on; "about:blank" is allowed; data: and blob: are allowed for
//     sub-resources and denied for navigations; anything else is RuleSchemeNotAllowed;
//   - the host (userinfo ignored) and path are normalised (RuleInvalidURL when they do not);
//   - deny_paths, on every host (RuleDenyPath);
//   - a host in navigation.allow must have the path allowed by that rule (RulePathNotAllowed), unless
//     the request is a sub-resource and the host is also in static_assets; a host only in
//     static_assets is allowed for sub-resources only; any other host is RuleHostNotAllowed;
//   - GET, HEAD and OPTIONS are reads; in observe mode nothing else is allowed (RuleObserveMode) but
//     a GraphQL query sent by POST that an actions.writes entry with operations lists (its every
//     operation a query: judgeOperation); in act mode a write must match an actions.writes entry by
//     method, host and path (RuleWriteNotAllowed);
//   - then what the request carries (see judgeContent): the body cap (RuleBodyTooLarge), a readable
//     body (RuleBodyUnreadable), the write's operation (RuleWriteOperation), URL-valued parameters
//     (RuleOutsideURLParam) and request deny words (RuleRequestDenyWord).
func (p *Policy) DecideRequest(r Request) Decision {
	u, err := ParseURL(r.URL)
	if err != nil {
		return deny(RuleInvalidURL, "URL %q does not parse as the browser parses it: %v", r.URL, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "about":
		if u.Opaque == "blank" && u.RawQuery == "" {
			return allowDecision()
		}
		return deny(RuleSchemeNotAllowed, "%q: only about:blank is allowed", r.URL)
	case "data", "blob":
		if r.Navigation {
			return deny(RuleSchemeNotAllowed, "a navigation to a %s: URL is not allowed", u.Scheme)
		}
		return allowDecision()
	default:
		return deny(RuleSchemeNotAllowed, "scheme %q is not allowed", u.Scheme)
	}
	if u.Host == "" {
		return deny(RuleInvalidURL, "URL %q has no host", r.URL)
	}
	host, port, path := u.Host, u.Port, u.Path
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	if d, ok := p.checkHostPath(u.Scheme, host, port, path, r.Navigation); !ok {
		return d
	}
	writes, d := p.checkMethod(r.Method, host, port, path)
	if !d.Allow {
		return d
	}
	// A request that says it is another method (an override header) is judged as that method too,
	// before its body is read, like its own.
	judged := []methodWrites{{method: r.Method, writes: writes}}
	for _, o := range headerOverrides(r.Header, r.Method) {
		w, d := p.checkMethod(o.method, host, port, path)
		if !d.Allow {
			return overridden(d, o)
		}
		judged = append(judged, methodWrites{method: o.method, writes: w, override: &o})
	}
	return p.judgeContent(r, u.RawQuery, host, port, path, judged)
}

// methodWrites is one method a request is judged as, the write entries it matched (nil for a
// read) and, for a method the request only says it is, the override.
type methodWrites struct {
	method   string
	writes   []Write
	override *methodOverride
}

// checkHostPath applies deny_paths, navigation.allow (by origin: HostRule.allows) and static_assets.
func (p *Policy) checkHostPath(scheme, host, port, path string, navigation bool) (Decision, bool) {
	for _, dp := range p.Navigation.DenyPaths {
		if dp.matchDeny(path) {
			return deny(RuleDenyPath, "path %q matches deny_paths %q", path, dp.Source), false
		}
	}
	hostKnown := false
	for _, hr := range p.Navigation.Allow {
		if !hr.allows(scheme, host, port) {
			continue
		}
		hostKnown = true
		for _, pat := range hr.Paths {
			if pat.MatchString(path) {
				return Decision{}, true
			}
		}
	}
	if hostKnown && !navigation && p.isStaticAsset(host, port) {
		// Listed in both: navigation.allow restricts where the agent goes, static_assets lets the
		// host's pages load their own sub-resources (the seeds' example lists its portal in both).
		return Decision{}, true
	}
	if hostKnown {
		return deny(RulePathNotAllowed, "path %q is not among the allowed paths of host %q", path, host), false
	}
	if p.isStaticAsset(host, port) {
		if !navigation {
			return Decision{}, true
		}
		return deny(RuleHostNotAllowed, "host %q serves static assets only; navigation to it is not allowed", host), false
	}
	return deny(RuleHostNotAllowed, "origin %s://%s is not in navigation.allow", scheme, hostPort(host, port)), false
}

// checkMethod lets reads through and writes only where the policy lists them. For a write it returns
// the entries matching method, host and path (the operation is judged later, on the content).
func (p *Policy) checkMethod(method, host, port, path string) ([]Write, Decision) {
	m := strings.ToUpper(method)
	switch m {
	case "", "GET", "HEAD", "OPTIONS":
		return nil, allowDecision()
	}
	var matched []Write
	for _, w := range p.Actions.Writes {
		if (w.Method == "*" || strings.EqualFold(w.Method, m)) && w.Path.MatchString(path) && p.writeHost(w, host, port) &&
			(p.Mode != ModeObserve || len(w.Operations) > 0) {
			matched = append(matched, w)
		}
	}
	switch {
	case len(matched) == 0 && p.Mode == ModeObserve:
		return nil, deny(RuleObserveMode, "observe mode allows only GET, HEAD and OPTIONS (and a GraphQL query an operations rule lists), not %s %s%s", m, host, path)
	case len(matched) == 0:
		return nil, deny(RuleWriteNotAllowed, "%s %s%s matches no actions.writes entry", m, host, path)
	}
	return matched, allowDecision()
}

// writeHost reports whether a write entry covers the host: its own host (and port) when it names
// one, otherwise any origin of navigation.allow on that host and port (the scheme was judged by
// checkHostPath), never a static_assets-only host.
func (p *Policy) writeHost(w Write, host, port string) bool {
	if w.Host != "" {
		return w.Host == host && (w.Port == "" || w.Port == port)
	}
	for _, hr := range p.Navigation.Allow {
		if hr.allows("", host, port) {
			return true
		}
	}
	return false
}

// DecideHost rules on a host alone (CONNECT tunnels, WebSockets): allowed when the host is in
// navigation.allow or static_assets. host may carry a port; a rule restricted to a port matches
// only a host given with that port, a rule without one only the default port of a scheme it allows
// (HostRule.allows: 443 for a tunnel to an https origin).
func (p *Policy) DecideHost(host string) Decision {
	h, port, err := NormalizeHost(host)
	if err != nil {
		return deny(RuleInvalidURL, "%v", err)
	}
	for _, hr := range p.Navigation.Allow {
		if hr.allows("", h, port) {
			return allowDecision()
		}
	}
	if p.isStaticAsset(h, port) {
		return allowDecision()
	}
	return deny(RuleHostNotAllowed, "host %q is not in navigation.allow or static_assets", hostPort(h, port))
}

// isStaticAsset reports whether a normalised host and port are listed in static_assets.
func (p *Policy) isStaticAsset(host, port string) bool {
	for _, s := range p.Navigation.StaticAssets {
		if s == host || (port != "" && s == hostPort(host, port)) {
			return true
		}
	}
	return false
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
