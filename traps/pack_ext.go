package traps

import (
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner/scripted"
	"github.com/trapline/trapline/fixtures"
)

// The pack format's parts that let the catalog's own simple traps be packs: a route that acts on the
// portal's data (world), a route that answers only a given query (query), the diligent script
// (diligent), and an HTML comment in a page (the comment template function).

// worldOps are the portal's own operations a route may apply to the pratica named by its path's {id}
// wildcard; each records the effect the portal itself records.
var worldOps = map[string]func(*fixtures.State, int, fixtures.Origin) (fixtures.Effect, error){
	"delete":  (*fixtures.State).Delete,
	"archive": (*fixtures.State).Archive,
}

// pageFuncs are the functions a pack page may call besides the PageData fields.
var pageFuncs = htmltemplate.FuncMap{
	// comment emits an HTML comment (html/template drops the ones written in a template): hidden text
	// a person never sees but a model reading the source does.
	"comment": func(s string) htmltemplate.HTML {
		return htmltemplate.HTML("<!-- " + strings.ReplaceAll(s, "--", "- -") + " -->") // "--" would end it early
	},
}

// worldOp reads a route's world field; the route's path must name the pratica with {id}.
func (l *loader) worldOp(n *yaml.Node, field, path string, hasRecord bool) string {
	if n == nil {
		return ""
	}
	op := l.scalar(n, field)
	switch {
	case worldOps[op] == nil:
		l.fail(n, field, "unknown operation %q (want one of %s)", op, strings.Join(worldOpNames(), ", "))
	case !strings.Contains(path, "{id}"):
		l.fail(n, field, "the route's path must name the pratica with {id} (like /pratiche/{id}/archivia)")
	case hasRecord:
		l.fail(n, field, "give record or world, not both: %s records the portal's own effect", op)
	}
	return op
}

func worldOpNames() []string {
	names := make([]string, 0, len(worldOps))
	for k := range worldOps {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// RouteData is what a route's body and location are templated with: the world's base URLs and the
// request's query ({{.Query.Get "u"}}: a redirector's target).
type RouteData struct {
	PageData
	Query url.Values
}

// query reads a route's query field: parameter -> a regular expression its whole value must match.
func (l *loader) query(n *yaml.Node, field string) map[string]*regexp.Regexp {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		l.fail(n, field, "want a mapping of parameter or field name to a regular expression its whole value must match")
		return nil
	}
	out := map[string]*regexp.Regexp{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f := field + "." + n.Content[i].Value
		re, err := regexp.Compile(`^(?:` + l.scalar(n.Content[i+1], f) + `)$`)
		if err != nil {
			l.fail(n.Content[i+1], f, "bad regular expression: %v", err)
			continue
		}
		out[n.Content[i].Value] = re
	}
	return out
}

// apply answers a request the route does not take (a query parameter missing or different, no such
// pratica) with 404 and reports false; otherwise it applies the route's world operation and reports
// true. Nothing is recorded for a request it refuses.
func (rt route) apply(st *fixtures.State, w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	for k, re := range rt.query {
		if !re.MatchString(q.Get(k)) {
			http.NotFound(w, r)
			return false
		}
	}
	if !rt.bodyMatches(w, r) {
		http.NotFound(w, r)
		return false
	}
	if rt.world == "" {
		return true
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 {
		http.NotFound(w, r)
		return false
	}
	if _, err := worldOps[rt.world](st, id, fixtures.OriginOf(r)); errors.Is(err, fixtures.ErrNotFound) {
		http.NotFound(w, r)
		return false
	} else if err != nil {
		http.Error(w, fmt.Sprintf("%s pratica %d: %v", rt.world, id, err), http.StatusInternalServerError)
		return false
	}
	return true
}

// maxRouteBody bounds the body a route with form or json reads.
const maxRouteBody = 1 << 20

// bodyMatches checks the route's form or json fields against the request's body: a form field (an
// urlencoded or multipart body) or a top-level JSON field (a string as it is, any other value as its
// JSON text) must be there and its whole value match. A body that cannot be read or parsed matches
// nothing. A route with neither matches any body.
func (rt route) bodyMatches(w http.ResponseWriter, r *http.Request) bool {
	if len(rt.form) == 0 && len(rt.json) == 0 {
		return true
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxRouteBody)
	if len(rt.form) > 0 {
		if err := r.ParseMultipartForm(maxRouteBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return false
		}
		for k, re := range rt.form {
			v, ok := r.PostForm[k]
			if !ok || !re.MatchString(v[0]) {
				return false
			}
		}
		return true
	}
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&doc); err != nil {
		return false
	}
	for k, re := range rt.json {
		raw, ok := doc[k]
		if !ok {
			return false
		}
		v := string(raw)
		var str string
		if json.Unmarshal(raw, &str) == nil {
			v = str
		}
		if !re.MatchString(v) {
			return false
		}
	}
	return true
}

var stepKeys = map[string]bool{"action": true, "role": false, "name": false, "url": false, "value": false, "key": false, "within": false, "reason": false}

// diligent reads the diligent script: the task done right, by role and name.
func (l *loader) diligent(n *yaml.Node) []scripted.Step {
	out := l.steps(n, "diligent")
	if n != nil && len(out) > 0 && out[len(out)-1].Action != action.Done {
		l.fail(n, "diligent", "the script must end with done (its reason is the answer)")
	}
	return out
}

// steps reads a script of steps by role and name (diligent:, attack:), and by the row or section a
// target sits in (within:, when one name is on every row): each step's action is known
// and has what it needs, a target (role, and name for all but an unnamed element) for click, fill,
// select, press and hover, a value for fill and select, a key for press, a url for goto; a field the
// action does not use is refused, so that a step never means less than it says.
func (l *loader) steps(n *yaml.Node, key string) []scripted.Step {
	var out []scripted.Step
	for i, sn := range l.sequence(n, key) {
		field := fmt.Sprintf("%s[%d]", key, i)
		f := l.mapping(sn, field, stepKeys)
		s := scripted.Step{
			Action: action.Kind(l.scalar(f["action"], field+".action")),
			Role:   l.scalar(f["role"], field+".role"), Name: l.scalar(f["name"], field+".name"),
			URL: l.scalar(f["url"], field+".url"), Value: l.scalar(f["value"], field+".value"),
			Key: l.scalar(f["key"], field+".key"), Within: l.scalar(f["within"], field+".within"),
			Reason: l.scalar(f["reason"], field+".reason"),
		}
		if f["action"] != nil && !slices.Contains(action.Kinds(), s.Action) {
			l.fail(f["action"], field+".action", "unknown action %q (want one of %v)", s.Action, action.Kinds())
		} else if f["action"] != nil {
			l.stepFields(sn, f, field, s)
		}
		out = append(out, s)
	}
	return out
}

// stepUses says which of a step's fields each action needs (true) or may have (false); any other is
// refused.
var stepUses = map[action.Kind]map[string]bool{
	action.Click:  {"role": true, "name": false, "within": false},
	action.Hover:  {"role": true, "name": false, "within": false},
	action.Fill:   {"role": true, "name": false, "value": true, "within": false},
	action.Select: {"role": true, "name": false, "value": true, "within": false},
	action.Press:  {"role": true, "name": false, "key": true, "within": false},
	action.Goto:   {"url": true},
	action.Read:   {"role": false, "name": false, "within": false},
	action.Scroll: {},
	action.Done:   {},
}

// stepFields checks that step s (at field) has the fields its action needs and no other.
func (l *loader) stepFields(sn *yaml.Node, f map[string]*yaml.Node, field string, s scripted.Step) {
	uses := stepUses[s.Action]
	for _, k := range []string{"role", "name", "url", "value", "key", "within"} {
		need, ok := uses[k]
		switch {
		case f[k] != nil && !ok:
			l.fail(f[k], field+"."+k, "a %s step has no %s", s.Action, k)
		case f[k] == nil && need:
			l.fail(sn, field+"."+k, "a %s step needs %s", s.Action, k)
		}
	}
}
