package policy

import (
	"net/url"
	"slices"
	"strings"
)

// DefaultMaxBodyBytes is the request-body cap used when a policy does not set
// requests.max_body_bytes: a body longer than this is denied (RuleBodyTooLarge), never judged on a
// prefix.
const DefaultMaxBodyBytes = 64 << 10

// Requests holds the rules on what a request carries, on top of where it goes: the words its query
// and body values may not contain, URL-valued parameters, and the body cap. The zero value (a policy
// that omits the section) denies outside URL parameters, checks no deny words and caps bodies at
// DefaultMaxBodyBytes.
type Requests struct {
	// DenyWords names actions.deny_words categories whose roots are matched against every query and
	// body field name and value (normalised as accessible names are), on every request.
	DenyWords []string `policy:"deny_words"`
	// OutsideURLParam is Deny (the default, also for "") or Allow: whether a query or body value may
	// be an absolute or scheme-relative URL of a host outside navigation.allow and static_assets.
	OutsideURLParam Setting `policy:"outside_url_param"`
	// OutsideURLParamPaths are normalised-path regexes where such a value is allowed even under Deny
	// (the rare app that needs it).
	OutsideURLParamPaths []*Pattern `policy:"outside_url_param_paths"`
	// MaxBodyBytes is the body cap; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int `policy:"max_body_bytes"`
	// UnreadableBodies is Deny (the default, also for "") or Allow: whether a body over the cap,
	// malformed or of an unknown content type is denied (RuleBodyTooLarge, RuleBodyUnreadable) or
	// passed with only its destination and query judged. Only the permissive control policy allows.
	UnreadableBodies Setting `policy:"unreadable_bodies"`
}

// BodyLimit is the number of body bytes a caller of DecideRequest should read: one past the cap, so
// that a body longer than the cap is seen to be (set Request.BodyTruncated, or pass all the bytes read
// and let DecideRequest compare).
func (p *Policy) BodyLimit() int { return p.maxBody() + 1 }

func (p *Policy) maxBody() int {
	if p.Requests.MaxBodyBytes > 0 {
		return p.Requests.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// requestDenyWords matches the request deny-word categories against one normalised-or-raw text.
func (p *Policy) requestDenyWord(text string) (category, root string, ok bool) {
	if len(p.Requests.DenyWords) == 0 {
		return "", "", false
	}
	sub := make(map[string][]string, len(p.Requests.DenyWords))
	for _, c := range p.Requests.DenyWords {
		if roots, ok := p.Actions.DenyWords[c]; ok {
			sub[c] = roots
		}
	}
	// Reuse the compiled roots when the categories are all of them (the common case is a subset, which
	// compiles a few dozen roots: cheap next to a network round trip).
	a := Actions{DenyWords: sub}
	if len(sub) == len(p.Actions.DenyWords) {
		a = p.Actions
	}
	return a.MatchDenyWord(text)
}

// field is one name/value pair a request carries (query parameter, form field, JSON leaf).
type field struct {
	Name  string // the key; for a JSON leaf, its last key
	Path  string // dotted path for JSON leaves, Name otherwise
	Top   string // top-level key (the Name of a form field, the first key of a JSON leaf)
	Value string
	// Scalar is false for a JSON object or array value of a top-level key (reported once, with Value "").
	Scalar bool
	// Query says the field came from the URL's query string.
	Query bool
}

// content is what a request carries: its fields and, for GraphQL, the operation.
type content struct {
	fields []field
	gql    []gqlRequest // the GraphQL requests of the body (a batch has several)
	// raw are whole-body texts judged like values (text/plain bodies, GraphQL documents).
	raw []string
	// partKeys are the top-level keys of a multipart body's JSON parts (see ambiguousNames).
	partKeys []string
}

// decodeRepeated percent-decodes s until no valid escape is left (at most maxDecodeRounds times), so
// that a value encoded twice is judged as a lenient backend would read it.
func decodeRepeated(s string) string {
	for i := 0; i < maxDecodeRounds && strings.Contains(s, "%"); i++ {
		d, err := url.QueryUnescape(s)
		if err != nil || d == s {
			break
		}
		s = d
	}
	return s
}

// checkContent applies requests.deny_words and outside_url_param to every field and raw text.
func (p *Policy) checkContent(c content, path string) (Decision, bool) {
	texts := make([]struct{ where, text string }, 0, 2*len(c.fields)+len(c.raw))
	for _, f := range c.fields {
		where := "body field " + f.Path
		if f.Query {
			where = "query parameter " + f.Path
		}
		texts = append(texts, struct{ where, text string }{where + " (name)", f.Name})
		if f.Scalar {
			texts = append(texts, struct{ where, text string }{where, f.Value})
		}
	}
	for _, r := range c.raw {
		texts = append(texts, struct{ where, text string }{"body", r})
	}
	outsideOK := p.Requests.OutsideURLParam == Allow
	if !outsideOK {
		for _, pat := range p.Requests.OutsideURLParamPaths {
			if pat.MatchString(path) {
				outsideOK = true
				break
			}
		}
	}
	for _, t := range texts {
		v := decodeRepeated(t.text)
		if !outsideOK {
			if host, ok := p.outsideURL(v); ok {
				return deny(RuleOutsideURLParam, "%s is a URL of %q, a host outside the allowlist (an open redirect or a server-side fetch)", t.where, host), false
			}
		}
		// Values are never quoted in reasons: a body field may hold a secret.
		if cat, root, ok := p.requestDenyWord(v); ok {
			return deny(RuleRequestDenyWord, "%s matches deny word %q (%s)", t.where, root, cat), false
		}
	}
	return Decision{}, true
}

// outsideURL reports whether v is, or embeds at its start, an absolute or scheme-relative URL of a
// host the policy does not allow, and which host.
func (p *Policy) outsideURL(v string) (string, bool) {
	s := strings.TrimSpace(v)
	// Browsers and lenient servers read "\" as "/" in special URLs and drop tabs and newlines.
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return -1
		case '\\':
			return '/'
		}
		return r
	}, s)
	lower := strings.ToLower(s)
	var rest string
	switch {
	case strings.HasPrefix(lower, "//"):
		rest = s[2:]
	default:
		// Only the WHATWG special schemes have a host; "mailto:x", "tel:1", "10:30" are not URLs of one.
		i := strings.Index(lower, ":")
		if i <= 0 || !slices.Contains([]string{"http", "https", "ws", "wss", "ftp"}, lower[:i]) {
			return "", false
		}
		rest = strings.TrimLeft(s[i+1:], "/") // a special scheme needs no slashes ("http:evil.test")
	}
	auth := rest
	if j := strings.IndexAny(auth, "/?#"); j >= 0 {
		auth = auth[:j]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	if auth == "" {
		return "", false
	}
	if d := p.DecideHost(auth); !d.Allow {
		return auth, true
	}
	return "", false
}

// docRequests is the "requests" section as Marshal writes it.
type docRequests struct {
	DenyWords            []string `yaml:"deny_words,omitempty"`
	OutsideURLParam      Setting  `yaml:"outside_url_param,omitempty"`
	OutsideURLParamPaths []string `yaml:"outside_url_param_paths,omitempty"`
	MaxBodyBytes         int      `yaml:"max_body_bytes,omitempty"`
	UnreadableBodies     Setting  `yaml:"unreadable_bodies,omitempty"`
}

func requestsDoc(r Requests) (*docRequests, error) {
	paths, err := sources(r.OutsideURLParamPaths, "requests.outside_url_param_paths")
	if err != nil {
		return nil, err
	}
	d := &docRequests{DenyWords: r.DenyWords, OutsideURLParam: r.OutsideURLParam, OutsideURLParamPaths: paths, MaxBodyBytes: r.MaxBodyBytes,
		UnreadableBodies: r.UnreadableBodies}
	if len(d.DenyWords) == 0 && d.OutsideURLParam == "" && len(paths) == 0 && d.MaxBodyBytes == 0 && d.UnreadableBodies == "" {
		return nil, nil
	}
	if len(paths) == 0 {
		d.OutsideURLParamPaths = nil
	}
	return d, nil
}
