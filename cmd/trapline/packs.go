package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/trapline/trapline/traps"
)

// dirsFlag is a repeatable folder flag (--traps-dir A --traps-dir B).
type dirsFlag []string

func (d *dirsFlag) String() string { return strings.Join(*d, ",") }

// Set adds one folder.
func (d *dirsFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty folder")
	}
	*d = append(*d, v)
	return nil
}

// registry is the one set of traps a command reads: the built-in catalog plus the packs in dirs.
func registry(dirs []string) (*traps.Registry, error) {
	r, err := traps.NewRegistry()
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if err := r.LoadPack(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// cmdTrapsLint loads each pack strictly and prints its traps, or every problem with file:line:field.
func cmdTrapsLint(args []string, stdout io.Writer) error {
	fset := newFlags("traps lint")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if args = fset.Args(); len(args) == 0 {
		//lint:ignore ST1005 a usage text, printed as it is (its lines end in newlines)
		return withCode(exitUsage, errors.New(trapsLintUsage))
	}
	var problems []error
	r, err := traps.NewRegistry()
	if errors.Is(err, traps.ErrPack) { // the built-in pack itself (a trap scaffolded there, not filled in yet)
		return withCode(exitUsage, fmt.Errorf("traps lint: %w", err))
	}
	if err != nil {
		return withCode(exitBroken, err)
	}
	var builtin []traps.Trap
	for _, dir := range args {
		if filepath.Clean(dir) == builtinPackDir { // the catalog's own pack: its ids are the catalog's
			if builtin, err = traps.LoadPack(dir); err != nil {
				problems = append(problems, err)
			}
			continue
		}
		if err := r.LoadPack(dir); err != nil {
			problems = append(problems, err)
			continue
		}
	}
	if len(problems) > 0 {
		return withCode(exitUsage, fmt.Errorf("traps lint: the pack has problems:\n%w", errors.Join(problems...)))
	}
	for _, t := range append(builtin, r.All()...) {
		if t.Pack != nil && slices.Contains(args, t.Pack.Origin) && (t.Pack.Origin != builtinPackDir || builtin != nil) {
			fmt.Fprintf(stdout, "ok  %s  %s (%s): %d page(s) and route(s), guards %v\n", filepath.Join(t.Pack.Origin, t.Pack.File), t.ID, t.Category, len(t.Mounts), t.Guards)
		}
	}
	return nil
}

var packTrapFile = template.Must(template.New("pack").Parse(`# Trap {{.ID}}. Fill in every TODO; ` + "`trapline traps lint {{.Dir}}`" + ` refuses the file until then.
# Format: docs/trap-packs.md.
id: {{.ID}}
category: {{.Category}}
# The real failure this trap models, in one or two sentences.
incident: TODO what happened in production
# What the agent is asked to do (a benign task; the trap is on its way).
task: TODO what the agent is asked to do
start: /pratiche/{{.ID}}
pages:
  /pratiche/{{.ID}}: {{.ID}}.html
routes:
  - method: POST
    path: /pratiche/{{.ID}}/elimina
    record: pratica.deleted
    response: {location: /pratiche}
forbidden:
  - observer: backend
    kind: pratica.deleted
    desc: a pratica was deleted
guards: [deny_word]
# Must the naive example external agent (examples/external-agent) be caught here, and why? Every
# built-in trap says it; in a pack of your own you may drop the key.
naive: {caught: true, why: TODO which behaviour of the naive agent makes it so}
`))

var packPageFile = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="it">
<head><meta charset="utf-8"><title>{{.ID}}</title>
<link rel="stylesheet" href="{{"{{"}}.Static{{"}}"}}/app.css"></head>
<body>
<main>
  <h1>TODO: the page that reproduces {{.ID}}</h1>
  <form method="post" action="/pratiche/{{.ID}}/elimina"><button type="submit">Elimina pratica</button></form>
</main>
</body>
</html>
`))

// builtinPackDir is the catalog's own pack, relative to the repository root: where `trapline traps
// new ID` adds a trap to the catalog.
var builtinPackDir = filepath.Join("traps", "packs", "builtin")

var trapID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// cmdTrapsNew scaffolds DIR/ID.trap.yml and DIR/ID.html, all or nothing: the one way to add a trap.
// DIR is --pack, or the built-in pack (the catalog) when run from the repository root. The trap file
// fails lint (incident, task and naive.why say TODO) until it is filled in.
func cmdTrapsNew(args []string, stdout io.Writer) error {
	fset := newFlags("traps new")
	dir := fset.String("pack", "", "the pack folder (default: the built-in pack, traps/packs/builtin)")
	category := fset.String("category", "destructive", "the trap's category")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 1 {
		return withCode(exitUsage, fmt.Errorf("traps new takes exactly one ID (got %q)\n%s", fset.Args(), trapsNewUsage))
	}
	id := fset.Arg(0)
	if !trapID.MatchString(id) {
		return withCode(exitUsage, fmt.Errorf("traps new: id %q: want kebab-case like decoy-delete", id))
	}
	if !slices.Contains(traps.Categories(), traps.Category(*category)) {
		return withCode(exitUsage, fmt.Errorf("traps new: --category %q: want one of %v", *category, traps.Categories()))
	}
	if *dir == "" {
		if fi, err := os.Stat(builtinPackDir); err != nil || !fi.IsDir() {
			return withCode(exitUsage, fmt.Errorf("traps new: the built-in pack %s is not here: run from the repository root, or pass --pack DIR for a pack of your own", builtinPackDir))
		}
		*dir = builtinPackDir
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return withCode(exitBroken, fmt.Errorf("traps new: %w", err))
	}
	data := struct{ ID, Category, Dir string }{id, *category, *dir}
	files := []struct {
		path string
		tmpl *template.Template
	}{{filepath.Join(*dir, id+traps.PackSuffix), packTrapFile}, {filepath.Join(*dir, id+".html"), packPageFile}}
	for _, f := range files {
		if _, err := os.Lstat(f.path); err == nil { // a symlink, even one to nothing, exists too
			return withCode(exitUsage, fmt.Errorf("traps new: %s already exists", f.path))
		}
	}
	var written []string
	for _, f := range files {
		var b strings.Builder
		if err := f.tmpl.Execute(&b, data); err != nil {
			return withCode(exitBroken, fmt.Errorf("traps new: render %s: %w", f.path, err))
		}
		if err := writeNew(f.path, b.String()); err != nil {
			for _, w := range written {
				_ = os.Remove(w)
			}
			return withCode(exitBroken, fmt.Errorf("traps new: write %s: %w", f.path, err))
		}
		written = append(written, f.path)
	}
	run := fmt.Sprintf("trapline run --traps-dir %s --traps %s", *dir, id)
	if *dir == builtinPackDir { // already in the catalog: its specs run it
		run = fmt.Sprintf("make test LABELS=trap:%s", id)
	}
	fmt.Fprintf(stdout, "created %s and %s\nnext: fill in the TODOs until `trapline traps lint %s` passes, then `%s` (the control arm must fire, the guarded arm must hold)\n",
		files[0].path, files[1].path, *dir, run)
	return nil
}

// writeNew creates path with content, refusing a path that exists (O_EXCL: a symlink put there since
// the check is not followed).
func writeNew(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
