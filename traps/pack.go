package traps

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/userfile"
)

// PackSuffix ends the name of every trap file of a pack.
const PackSuffix = ".trap.yml"

// The size limits of a pack (docs/trap-packs.md, "Limits"): each is checked before the file is
// parsed, so that loading a pack costs memory bounded by a small multiple of them.
const (
	// MaxTrapFileBytes bounds one *.trap.yml file (the built-in ones are under 4 KiB).
	MaxTrapFileBytes = 256 << 10
	// MaxPageFileBytes bounds one page file a trap names.
	MaxPageFileBytes = 1 << 20
	// MaxPackBytes bounds the trap file and page files of one trap together (its PackSource).
	MaxPackBytes = 8 << 20
	// MaxPackEntries bounds the files and folders of a pack, its subfolders included: the number
	// LoadPack looks at for symlinks that leave it.
	MaxPackEntries = 10000
)

// maxRouteDelay bounds a route's response delay: a pack models a slow server, not a hung one.
const maxRouteDelay = 30 * time.Second

// PackSource is a pack trap in serialisable form: its trap file and the page files it names, by path
// inside the pack. It is what crosses a process boundary (the container world's sites rebuild the
// trap's mounts from it) and what fingerprints the trap's content.
type PackSource struct {
	// File is the trap file's path inside the pack, e.g. "my-trap.trap.yml".
	File string `json:"file"`
	// Files holds the trap file and every page file it names, by path inside the pack.
	Files map[string]string `json:"files"`
	// Origin is where the pack was loaded from (a folder), for messages only.
	Origin string `json:"origin,omitempty"`
}

// LoadPack loads every *.trap.yml file in dir (not its subfolders) and the pages they name. Every file
// is opened through an os.Root on dir, so no path, symlink included, can read outside the pack; and a
// symlink anywhere in the pack that leads out of it is refused even when no trap names it, with the
// link and its target (a symlink that stays inside is allowed). Loading is strict: unknown keys, missing fields, bad regular expressions, unknown rules, observers or
// categories, page files that do not exist, an incident or task still saying TODO are each refused as
// a PackError naming file, line and field; all of them come back together as PackErrors, and nothing
// is loaded when there is one.
func LoadPack(dir string) ([]Trap, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("load trap pack %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("load trap pack %s: not a folder", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("load trap pack %s: %w", dir, err)
	}
	defer root.Close()
	if errs := escapingLinks(root, dir); len(errs) > 0 {
		return nil, errs
	}
	return LoadPackFS(userfile.RootFS(root), dir) // its Open never blocks on a FIFO
}

// escapingLinks walks the pack (without following symlinks) and reports every symlink that does not
// resolve inside it: one that leaves it (an absolute target, ../, or through another link) or leads
// nowhere; and every entry that is no regular file, folder or symlink (a FIFO, a device, a socket),
// which the reader would refuse anyway (userfile.ErrNotRegular). A pack of more than MaxPackEntries
// files and folders is refused.
func escapingLinks(root *os.Root, origin string) PackErrors {
	var errs PackErrors
	entries := 0
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, &PackError{Family: ErrPack, File: path.Join(origin, p), Reason: fmt.Sprintf("read: %v", errors.Unwrap(err))})
			return nil
		}
		if entries++; entries > MaxPackEntries {
			errs = append(errs, &PackError{Family: ErrPack, File: origin, Reason: fmt.Sprintf("more than %d files and folders: a pack is a folder of trap files and their pages", MaxPackEntries)})
			return fs.SkipAll
		}
		if t := d.Type(); t != 0 && t != fs.ModeDir && t != fs.ModeSymlink {
			errs = append(errs, &PackError{Family: ErrPack, File: path.Join(origin, p), Code: userfile.CodeInvalidValue,
				Reason: userfile.TypeName(t) + ": a pack holds only regular files, folders and symlinks to them", Err: userfile.ErrNotRegular})
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		target, lerr := root.Readlink(p)
		if lerr != nil {
			target = "?"
		}
		if _, serr := root.Stat(p); serr != nil {
			reason := fmt.Sprintf("a symlink to %s, which leaves the pack: every file of a pack stays inside its folder", target)
			if inside(p, target) && errors.Is(serr, fs.ErrNotExist) {
				reason = fmt.Sprintf("a symlink to %s, which does not exist", target)
			}
			errs = append(errs, &PackError{Family: ErrPack, File: path.Join(origin, p), Reason: reason})
		}
		return nil
	})
	if err != nil {
		errs = append(errs, &PackError{Family: ErrPack, File: origin, Reason: fmt.Sprintf("read: %v", err)})
	}
	return errs
}

// inside reports whether a symlink at p (a path in the pack) to target stays in the pack by its
// spelling alone; os.Root decides for real (through other links too).
func inside(p, target string) bool {
	if path.IsAbs(target) || strings.HasPrefix(target, `\`) {
		return false
	}
	j := path.Join(path.Dir(p), target)
	return j != ".." && !strings.HasPrefix(j, "../")
}

// LoadPackFS is LoadPack on any file system; origin names it in errors (a folder path).
func LoadPackFS(fsys fs.FS, origin string) ([]Trap, error) {
	names, err := fs.Glob(fsys, "*"+PackSuffix)
	if err != nil {
		return nil, fmt.Errorf("load trap pack %s: %w", origin, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("load trap pack %s: no *%s file in it", origin, PackSuffix)
	}
	sort.Strings(names)
	var (
		out  []Trap
		errs PackErrors
		seen = map[string]string{}
	)
	for _, name := range names {
		t, perrs := loadTrapFile(fsys, origin, name)
		errs = append(errs, perrs...)
		if len(perrs) > 0 {
			continue
		}
		if prev, dup := seen[t.ID]; dup {
			errs = append(errs, &PackError{Family: ErrPack, File: path.Join(origin, name), Line: 1, Field: "id", Reason: fmt.Sprintf("id %q is also the id of %s", t.ID, prev)})
			continue
		}
		seen[t.ID] = name
		out = append(out, t)
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return out, nil
}

// loader collects the problems of one trap file.
type loader struct {
	userfile.Decoder // File is origin/name; every problem is ErrPack's
	fsys             fs.FS
	dir              string // the trap file's folder inside fsys
	source           PackSource
	used             int64 // bytes of source.Files, against MaxPackBytes
}

// read reads one file of the trap (name inside fsys) within limit and within what is left of
// MaxPackBytes, and keeps it in the trap's PackSource. A read refused by the pack's os.Root (a
// symlink that leaves it) or over a limit says so; the caller's message names the file.
func (l *loader) read(name, kind string, limit int64) ([]byte, error) {
	if b, ok := l.source.Files[name]; ok {
		return []byte(b), nil
	}
	left := int64(MaxPackBytes) - l.used
	b, err := userfile.ReadFS(l.fsys, name, kind, path.Join(l.source.Origin, name), min(limit, left))
	var (
		tl *userfile.TooLargeError
		nr *userfile.NotRegularError
		pe *fs.PathError
	)
	switch {
	case errors.As(err, &nr):
		return nil, &causeError{nr.Reason(), err}
	case errors.As(err, &tl) && left < limit:
		return nil, &causeError{fmt.Sprintf("%d bytes, over the %d bytes left of the %s all the files of a trap may hold (MaxPackBytes)", tl.Size, left, userfile.Human(MaxPackBytes)), err}
	case errors.As(err, &tl):
		return nil, &causeError{tl.Sizes(), err}
	case errors.As(err, &pe):
		return nil, &causeError{pe.Err.Error(), err} // the loader's message names the file already
	case err != nil:
		return nil, err
	}
	l.source.Files[name] = string(b)
	l.used += int64(len(b))
	return b, nil
}

// causeError is a message of its own over the error it wraps.
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// failErr is fail with the cause kept (PackError.Err) for errors.Is; a file over its limit is
// CodeTooLarge.
func (l *loader) failErr(n *yaml.Node, field string, err error, format string, args ...any) {
	code := userfile.CodeInvalidValue
	if errors.Is(err, userfile.ErrTooLarge) {
		code = userfile.CodeTooLarge
	}
	l.Fail(n, field, code, format, args...).Err = err
}

// fail records a value the trap schema does not accept (CodeInvalidValue, as a policy's and a
// login file's).
func (l *loader) fail(n *yaml.Node, field, format string, args ...any) {
	l.Fail(n, field, userfile.CodeInvalidValue, format, args...)
}

// packKeys are the keys a trap file may have; required ones are marked.
var packKeys = map[string]bool{
	"id": true, "category": true, "incident": true, "task": true, "start": true,
	"start_host": false, "pages": false, "routes": false, "forbidden": true, "guards": true, "success": false,
	"policy_patch": false, "naive": false, "probe": false, "diligent": false, "reset": false,
	"attack": false, "login": false,
}

func loadTrapFile(fsys fs.FS, origin, name string) (Trap, PackErrors) {
	l := &loader{Decoder: userfile.Decoder{File: path.Join(origin, name), Family: ErrPack}, fsys: fsys, dir: path.Dir(name),
		source: PackSource{File: name, Files: map[string]string{}, Origin: origin}}
	data, err := l.read(name, "trap file", MaxTrapFileBytes)
	if err != nil {
		l.failErr(nil, "", err, "%v", err)
		return Trap{}, l.Errs
	}
	root, derr := userfile.Document(l.File, data) // the one strict reader: one document, syntax at its line
	if derr != nil {
		l.Add(derr)
		return Trap{}, l.Errs
	}
	if root.Kind != yaml.MappingNode {
		l.Fail(root, "", userfile.CodeWrongType, "a trap file is one YAML mapping (id, category, incident, ...), got %s", userfile.KindName(root))
		return Trap{}, l.Errs
	}
	fields := l.mapping(root, "", packKeys)
	t := Trap{Pack: &l.source}
	t.ID = l.str(fields, "id")
	if n := fields["id"]; n != nil && !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(t.ID) {
		l.fail(n, "id", "%q is not kebab-case (like decoy-delete)", t.ID)
	}
	t.Category = Category(l.str(fields, "category"))
	if n := fields["category"]; n != nil && !slices.Contains(Categories(), t.Category) {
		l.fail(n, "category", "unknown category %q (want one of %v)", t.Category, Categories())
	}
	t.Incident = l.prose(fields, "incident")
	t.Task = l.prose(fields, "task")
	t.StartPath = l.str(fields, "start")
	if n := fields["start"]; n != nil && !strings.HasPrefix(t.StartPath, "/") {
		l.fail(n, "start", "%q must be a path starting with /", t.StartPath)
	}
	if n := fields["start_host"]; n != nil {
		t.StartHost = l.hostOf(n, "start_host")
	}
	t.Mounts = append(t.Mounts, l.pages(fields["pages"])...)
	t.Mounts = append(t.Mounts, l.routes(fields["routes"])...)
	t.Forbidden = l.forbidden(fields["forbidden"])
	t.Guards = l.guards(fields["guards"])
	t.Success = l.success(fields["success"])
	t.PolicyPatch = l.policyPatch(fields["policy_patch"])
	t.Naive = l.naive(fields["naive"])
	t.Probe = l.probe(fields["probe"])
	t.Diligent = l.diligent(fields["diligent"])
	t.Attack = l.steps(fields["attack"], "attack")
	t.Reset = l.command(fields["reset"], "reset")
	if n := fields["login"]; n != nil {
		login := credentials.DecodeInline(&l.Decoder, n, "login")
		t.Login = &login
	}
	if t.Probe != nil && t.Probe.Path != "" && t.StartHost == "" {
		l.fail(fields["probe"], "probe", "a state probe reads the user's app: give start_host (the --upstream-host)")
	}
	for i, sn := range l.sequence(fields["success"], "success") {
		if i < len(t.Success) && t.Success[i].Observer == ObserverProbe && t.Probe == nil {
			l.fail(sn, fmt.Sprintf("success[%d].observer", i), "observer probe is a reading of the trap's probe: give probe too")
		}
	}
	if len(l.Errs) > 0 {
		return Trap{}, l.Errs
	}
	if err := t.Validate(); err != nil { // the same rules as a Go trap; the checks above name the lines
		l.fail(root, "", "%v", err)
		return Trap{}, l.Errs
	}
	return t, nil
}

// mapping checks n is a mapping with only the keys in allowed (and every required one), and returns
// its values by key (userfile.Decoder.Keys, the check every user file's mappings go through).
func (l *loader) mapping(n *yaml.Node, field string, allowed map[string]bool) map[string]*yaml.Node {
	return l.Keys(n, field, allowed)
}

// scalar returns n's single value (userfile.Decoder.Scalar), "" when n is absent or not one.
func (l *loader) scalar(n *yaml.Node, field string) string {
	s, _ := l.Scalar(n, field)
	return s
}

func (l *loader) str(fields map[string]*yaml.Node, key string) string {
	return l.scalar(fields[key], key)
}

// todoMarker is the scaffold's own placeholder (trapline traps new writes "TODO ..."): the upper-case
// word TODO on its own, so that "todos", "TodoMVC" or "TODOS" are prose, not a placeholder.
var todoMarker = regexp.MustCompile(`(^|[^A-Za-z0-9_])TODO($|[^A-Za-z0-9_])`)

// HasTODO reports whether s still holds the scaffold's TODO marker.
func HasTODO(s string) bool { return todoMarker.MatchString(s) }

// prose is a required sentence that must not still be a scaffold's TODO.
func (l *loader) prose(fields map[string]*yaml.Node, key string) string {
	s := strings.TrimSpace(l.str(fields, key))
	if n := fields[key]; n != nil {
		switch {
		case s == "":
			l.fail(n, key, "is empty")
		case HasTODO(s):
			l.fail(n, key, "still says TODO: write the real %s", key)
		}
	}
	return s
}

// regex checks a regular expression field.
func (l *loader) regex(n *yaml.Node, field string) string {
	s := l.scalar(n, field)
	if _, err := regexp.Compile(s); err != nil {
		l.fail(n, field, "bad regular expression: %v", err)
	}
	return s
}

func (l *loader) observer(n *yaml.Node, field string) fixtures.Observer {
	s := fixtures.Observer(l.scalar(n, field))
	if n != nil && !slices.Contains(Observers(), s) {
		l.fail(n, field, "unknown observer %q (want one of %v)", s, Observers())
	}
	return s
}

// sequence returns n's items (userfile.Decoder.Sequence); none when n is absent or not a list.
func (l *loader) sequence(n *yaml.Node, field string) []*yaml.Node {
	items, _ := l.Sequence(n, field)
	return items
}

// hostOf maps a page's or route's host field to a world host; "" is the portal.
func (l *loader) hostOf(n *yaml.Node, field string) string {
	if n == nil {
		return fixtures.PortalHost
	}
	h := l.scalar(n, field)
	hosts := []string{fixtures.PortalHost, fixtures.StaticHost, fixtures.EvilHost, fixtures.CDNHost}
	if !slices.Contains(hosts, h) && !upstreamHost.MatchString(h) {
		l.fail(n, field, "host %q: want one of %v or a user's app host name (--upstream-host) like portale.example.test", h, hosts)
	}
	return h
}

// PageData is what a pack page and a route's body and location are templated with: the world's base
// URLs, so that a page links its own hosts without spelling them.
type PageData struct {
	Portal, Static, Evil, CDN string
	// Twin is true when a trap's benign twin (Twins) serves the page: the page leaves its bait out
	// with {{if not .Twin}}. A pack trap's own pages always see false.
	Twin bool
}

// pageData is the one PageData every pack template gets.
var pageData = PageData{
	Portal: "http://" + fixtures.PortalHost, Static: "http://" + fixtures.StaticHost,
	Evil: "http://" + fixtures.EvilHost, CDN: "http://" + fixtures.CDNHost,
}

var pageKeys = map[string]bool{"file": false, "html": false, "host": false, "content_type": false}

// pages reads pages: path -> file name, or path -> {file | html, host, content_type}.
func (l *loader) pages(n *yaml.Node) []fixtures.Mount {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.Fail(n, "pages", userfile.CodeWrongType, "want a mapping of path to an HTML file or {file|html, host, content_type}")
		return nil
	}
	var out []fixtures.Mount
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := "pages." + k.Value
		if !strings.HasPrefix(k.Value, "/") || strings.ContainsAny(k.Value, " \t") {
			l.fail(k, field, "a page's key is its path, starting with / (got %q)", k.Value)
			continue
		}
		var file, inline, ctype string
		host := fixtures.PortalHost
		if v.Kind == yaml.ScalarNode {
			file = v.Value
		} else {
			f := l.mapping(v, field, pageKeys)
			file, inline = l.scalar(f["file"], field+".file"), l.scalar(f["html"], field+".html")
			host = l.hostOf(f["host"], field+".host")
			ctype = l.scalar(f["content_type"], field+".content_type")
			if (file == "") == (inline == "") {
				l.fail(v, field, "give exactly one of file and html")
				continue
			}
		}
		if ctype == "" {
			ctype = "text/html; charset=utf-8"
		}
		src := inline
		if file != "" {
			p := path.Join(l.dir, file)
			if !fs.ValidPath(p) || strings.HasPrefix(path.Clean(file), "..") {
				l.fail(v, field, "page file %q must be inside the pack", file)
				continue
			}
			b, err := l.read(p, "page file", MaxPageFileBytes)
			if err != nil {
				l.failErr(v, field, err, "page file %q: %v", file, err)
				continue
			}
			src = string(b)
			l.unseenInPage(src, l.pageFile(p), 1, field)
		} else {
			l.unseenInPage(src, l.File, v.Line, field) // an inline page: at the trap file's line
		}
		if validPattern("GET " + k.Value) {
			if err := fixtures.CheckBuiltin(host, "GET "+k.Value); err != nil {
				l.fail(k, field, "%v: the world would not start; pick another path (docs/trap-packs.md, \"The portal's built-in routes\")", err)
				continue
			}
		}
		tmpl, err := parsePackPage(k.Value, src)
		if err != nil {
			l.fail(v, field, "page template: %v", err)
			continue
		}
		out = append(out, packPage(host, "GET "+k.Value, ctype, tmpl, pageData))
	}
	return out
}

// parsePackPage parses a pack page, named by its path, on top of the shared partials (Partials), and
// renders it once: a template that cannot render is refused now, not when the agent opens it.
func parsePackPage(name, src string) (*htmltemplate.Template, error) {
	t, err := Partials()
	if err != nil {
		return nil, err
	}
	if t, err = t.New(name).Option("missingkey=error").Parse(src); err != nil {
		return nil, err
	}
	if err := t.Execute(&bytes.Buffer{}, pageData); err != nil {
		return nil, err
	}
	return t, nil
}

// packPage serves a pack page (GET, HEAD) rendered with data, never cached.
func packPage(host, pattern, ctype string, tmpl *htmltemplate.Template, data PageData) fixtures.Mount {
	return templateMount(host, pattern, ctype, pattern, func(w io.Writer) error { return tmpl.Execute(w, data) })
}

var (
	routeKeys    = map[string]bool{"method": true, "path": true, "host": false, "record": false, "detail": false, "response": false, "query": false, "form": false, "json": false, "world": false}
	responseKeys = map[string]bool{"status": false, "body": false, "location": false, "headers": false, "content_type": false, "delay": false}
	httpMethods  = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
)

// route is one routes entry, parsed.
type route struct {
	record, detail, ctype string
	status                int
	body, location        *texttemplate.Template
	headers               map[string]string
	delay                 time.Duration
	query                 map[string]*regexp.Regexp // what the request's parameters must match, else 404
	form, json            map[string]*regexp.Regexp // what the body's form or JSON fields must match, else 404
	world                 string                    // a worldOps operation on the path's {id}
}

// routes reads routes: [{method, path, host, record, detail, response: {...}}].
func (l *loader) routes(n *yaml.Node) []fixtures.Mount {
	var out []fixtures.Mount
	for i, rn := range l.sequence(n, "routes") {
		field := fmt.Sprintf("routes[%d]", i)
		f := l.mapping(rn, field, routeKeys)
		method := l.scalar(f["method"], field+".method")
		if f["method"] != nil && !slices.Contains(httpMethods, method) {
			l.fail(f["method"], field+".method", "unknown method %q (want one of %v)", method, httpMethods)
		}
		p := l.scalar(f["path"], field+".path")
		if f["path"] != nil && !validPattern(method+" "+p) {
			l.fail(f["path"], field+".path", "%q is not an http.ServeMux path pattern (like /pratiche/{id}/elimina)", p)
		}
		host := l.hostOf(f["host"], field+".host")
		if f["path"] != nil && f["method"] != nil && validPattern(method+" "+p) {
			if err := fixtures.CheckBuiltin(host, method+" "+p); err != nil {
				l.fail(f["path"], field+".path", "%v: the world would not start; pick another path (docs/trap-packs.md, \"The portal's built-in routes\")", err)
			}
		}
		rt := route{record: l.scalar(f["record"], field+".record"), detail: l.scalar(f["detail"], field+".detail"), status: http.StatusOK}
		if f["record"] != nil && !regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)+$`).MatchString(rt.record) {
			l.fail(f["record"], field+".record", "effect kind %q: want a dotted subject.verb like pratica.deleted", rt.record)
		}
		if r := f["response"]; r != nil {
			l.response(r, field+".response", &rt)
		}
		rt.query = l.query(f["query"], field+".query")
		rt.form = l.query(f["form"], field+".form")
		rt.json = l.query(f["json"], field+".json")
		if f["form"] != nil && f["json"] != nil {
			l.fail(f["json"], field+".json", "give form or json, not both: a body is one or the other")
		}
		if (f["form"] != nil || f["json"] != nil) && (method == http.MethodGet || method == http.MethodHead) {
			l.fail(f["path"], field, "form and json match a request's body: the method must be POST, PUT, PATCH or DELETE")
		}
		rt.world = l.worldOp(f["world"], field+".world", p, f["record"] != nil)
		out = append(out, fixtures.Mount{Host: host, Pattern: method + " " + p, Handler: rt.handler})
	}
	return out
}

func (l *loader) response(n *yaml.Node, field string, rt *route) {
	f := l.mapping(n, field, responseKeys)
	if s := f["status"]; s != nil {
		v, err := strconv.Atoi(l.scalar(s, field+".status"))
		switch {
		case err != nil || v < 100 || v > 599:
			l.fail(s, field+".status", "want an HTTP status 200..599")
		case v < 200: // issue 49.4: a 101 made the proxy a pipe; no 1xx is a route's final answer
			l.fail(s, field+".status", "%d is no final answer: a route answers 200..599 (a 101 would switch protocols, which only a WebSocket handshake may)", v)
		}
		rt.status = v
	}
	rt.body = l.template(f["body"], field+".body")
	if b := f["body"]; b != nil && b.Kind == yaml.ScalarNode {
		l.unseenInPage(b.Value, l.File, b.Line, field+".body")
	}
	rt.location = l.template(f["location"], field+".location")
	if rt.location != nil && f["status"] == nil {
		rt.status = http.StatusSeeOther
	}
	rt.ctype = l.scalar(f["content_type"], field+".content_type")
	if h := f["headers"]; h != nil {
		if h.Kind != yaml.MappingNode {
			l.fail(h, field+".headers", "want a mapping of header name to value")
		} else {
			rt.headers = map[string]string{}
			l.unseenInHeaders(h, field)
			for i := 0; i+1 < len(h.Content); i += 2 {
				rt.headers[http.CanonicalHeaderKey(h.Content[i].Value)] = l.scalar(h.Content[i+1], field+".headers."+h.Content[i].Value)
			}
		}
	}
	if d := f["delay"]; d != nil {
		v, err := time.ParseDuration(l.scalar(d, field+".delay"))
		if err != nil || v < 0 || v > maxRouteDelay {
			l.fail(d, field+".delay", "want a duration like 500ms, at most %s", maxRouteDelay)
		}
		rt.delay = v
	}
}

func (l *loader) template(n *yaml.Node, field string) *texttemplate.Template {
	if n == nil {
		return nil
	}
	t, err := texttemplate.New(field).Option("missingkey=error").Parse(l.scalar(n, field))
	if err == nil {
		err = t.Execute(&bytes.Buffer{}, RouteData{PageData: pageData})
	}
	if err != nil {
		l.fail(n, field, "template: %v", err)
		return nil
	}
	return t
}

// validPattern reports whether pattern registers on a ServeMux.
func validPattern(pattern string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	http.NewServeMux().Handle(pattern, http.NotFoundHandler())
	return true
}

// handler records the route's effect (observer backend) and answers as the response says. A delay
// waits for the timer or the request's end, whichever comes first.
func (rt route) handler(st *fixtures.State) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.delay > 0 {
			t := time.NewTimer(rt.delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
		if !rt.apply(st, w, r) {
			return
		}
		if rt.record != "" {
			st.Record(fixtures.OriginOf(r).Effect(fixtures.ObserverBackend, rt.record, rt.detail))
		}
		for k, v := range rt.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Cache-Control", "no-store")
		if rt.location != nil {
			var b bytes.Buffer
			if err := rt.location.Execute(&b, RouteData{pageData, r.URL.Query()}); err != nil {
				http.Error(w, fmt.Sprintf("route location: %v", err), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Location", b.String())
		}
		var body bytes.Buffer
		if rt.body != nil {
			if err := rt.body.Execute(&body, RouteData{pageData, r.URL.Query()}); err != nil {
				http.Error(w, fmt.Sprintf("route body: %v", err), http.StatusInternalServerError)
				return
			}
			ctype := rt.ctype
			if ctype == "" {
				ctype = "text/html; charset=utf-8"
			}
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(rt.status)
		_, _ = w.Write(body.Bytes())
	})
}

var forbiddenKeys = map[string]bool{"observer": true, "kind": false, "path": false, "detail": false, "desc": true}

// upstreamHost is a host name a pack may mount on beside the world's own: a user's app's.
var upstreamHost = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

func (l *loader) forbidden(n *yaml.Node) []Forbidden {
	var out []Forbidden
	items := l.sequence(n, "forbidden")
	if n != nil && n.Kind == yaml.SequenceNode && len(items) == 0 {
		l.fail(n, "forbidden", "is empty: a trap that forbids nothing proves nothing")
	}
	for i, fn := range items {
		field := fmt.Sprintf("forbidden[%d]", i)
		f := l.mapping(fn, field, forbiddenKeys)
		out = append(out, Forbidden{
			Observer: l.observer(f["observer"], field+".observer"),
			Kind:     l.scalar(f["kind"], field+".kind"),
			Path:     l.regex(f["path"], field+".path"),
			Detail:   l.regex(f["detail"], field+".detail"),
			Desc:     l.scalar(f["desc"], field+".desc"),
		})
	}
	return out
}

func (l *loader) guards(n *yaml.Node) []policy.Rule {
	var out []policy.Rule
	items := l.sequence(n, "guards")
	if n != nil && n.Kind == yaml.SequenceNode && len(items) == 0 {
		l.fail(n, "guards", "is empty: name the rule expected to stop the trap")
	}
	for i, gn := range items {
		field := fmt.Sprintf("guards[%d]", i)
		g := policy.Rule(l.scalar(gn, field))
		if !KnownRule(g) {
			l.fail(gn, field, "unknown rule %q (want one of %s)", g, policy.JoinRules(KnownRules(), ", "))
		}
		out = append(out, g)
	}
	return out
}

var successKeys = map[string]bool{"observer": false, "kind": false, "path": false, "detail": false, "answer": false, "desc": true}

func (l *loader) success(n *yaml.Node) []Success {
	var out []Success
	for i, sn := range l.sequence(n, "success") {
		field := fmt.Sprintf("success[%d]", i)
		f := l.mapping(sn, field, successKeys)
		s := Success{
			Kind:   l.scalar(f["kind"], field+".kind"),
			Path:   l.regex(f["path"], field+".path"),
			Detail: l.regex(f["detail"], field+".detail"),
			Answer: l.regex(f["answer"], field+".answer"),
			Desc:   l.scalar(f["desc"], field+".desc"),
		}
		if f["observer"] != nil {
			s.Observer = l.observer(f["observer"], field+".observer")
		}
		if s.Observer == "" && s.Answer == "" {
			l.fail(sn, field, "give an observer (an effect that must be recorded) or an answer")
		}
		out = append(out, s)
	}
	return out
}

var naiveKeys = map[string]bool{"caught": true, "why": true}

func (l *loader) naive(n *yaml.Node) *NaiveExpectation {
	if n == nil {
		return nil
	}
	f := l.mapping(n, "naive", naiveKeys)
	c := l.scalar(f["caught"], "naive.caught")
	caught, err := strconv.ParseBool(c)
	if f["caught"] != nil && err != nil {
		l.fail(f["caught"], "naive.caught", "want true or false")
	}
	why := strings.TrimSpace(l.scalar(f["why"], "naive.why"))
	if n := f["why"]; n != nil && (why == "" || HasTODO(why)) {
		l.fail(n, "naive.why", "say which behaviour of the naive agent makes it so (got %q)", why)
	}
	return &NaiveExpectation{Caught: caught, Why: why}
}
