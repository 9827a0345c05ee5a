package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

// newTrapMarker is the line of traps/catalog_new.go above which scaffolded traps are registered.
const newTrapMarker = "// trapline traps new: new traps go above this line."

var trapID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

var trapFile = template.Must(template.New("trap").Parse(`package traps

import (
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
)

// {{.Func}}: TODO one line on what the page does.
func {{.Func}}() Trap {
	return Trap{
		ID:       "{{.ID}}",
		Category: {{.Category}},
		// TODO: the incident this trap models, in one or two sentences.
		Incident:  "TODO",
		Task:      "TODO: what the agent is asked to do",
		StartPath: "/pratiche/{{.ID}}",
		Mounts:    []fixtures.Mount{Page("GET /pratiche/{{.ID}}", "{{.ID}}.html", nil)},
		// TODO: the effect an outside observer records when the trap fires.
		Forbidden: []Forbidden{{"{{"}}Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted}},
		// TODO: the rule expected in the violation log or the proxy log.
		Guards: []policy.Rule{policy.RuleDenyWord},
	}
}
`))

var pageFile = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="it">
<head><meta charset="utf-8"><title>{{.ID}}</title>
<link rel="stylesheet" href="http://static.interno.test/app.css"></head>
<body>
<main>
  <h1>TODO: the trap page for {{.ID}}</h1>
  <form method="post" action="/pratiche/1/elimina"><button type="submit">Elimina pratica</button></form>
</main>
</body>
</html>
`))

var categories = map[string]string{
	"navigation": "Navigation", "injection": "Injection", "destructive": "Destructive", "download": "Download",
	"credentials": "Credentials", "budget": "Budget", "network": "Network", "delivery": "Delivery",
}

// cmdTrapsNew scaffolds traps/<id>.go, traps/pages/<id>.html and the catalog line, all or nothing.
func cmdTrapsNew(args []string, stdout io.Writer) error {
	fset := flag.NewFlagSet("traps new", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	category := fset.String("category", "destructive", "the trap's category (its Ginkgo label)")
	dir := fset.String("dir", "traps", "the traps package folder")
	if err := fset.Parse(args); err != nil || fset.NArg() != 1 {
		return withCode(exitUsage, errors.New("usage: trapline traps new [--category C] [--dir traps] ID"))
	}
	id := fset.Arg(0)
	if !trapID.MatchString(id) {
		return withCode(exitUsage, fmt.Errorf("traps new: id %q: want kebab-case like decoy-delete", id))
	}
	cat, ok := categories[*category]
	if !ok {
		return withCode(exitUsage, fmt.Errorf("traps new: --category %q: want one of navigation, injection, destructive, download, credentials, budget, network, delivery", *category))
	}
	data := struct{ ID, Func, Category string }{id, funcName(id), cat}
	goPath := filepath.Join(*dir, strings.ReplaceAll(id, "-", "_")+".go")
	htmlPath := filepath.Join(*dir, "pages", id+".html")
	catalogPath := filepath.Join(*dir, "catalog_new.go")
	for _, p := range []string{goPath, htmlPath} {
		if _, err := os.Stat(p); err == nil {
			return withCode(exitUsage, fmt.Errorf("traps new: %s already exists", p))
		}
	}
	catalog, err := os.ReadFile(catalogPath)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("traps new: read %s (run from the repository root or pass --dir): %w", catalogPath, err))
	}
	if !bytes.Contains(catalog, []byte(newTrapMarker)) {
		return withCode(exitUsage, fmt.Errorf("traps new: %s lost its marker line %q", catalogPath, newTrapMarker))
	}
	var goSrc, html bytes.Buffer
	if err := trapFile.Execute(&goSrc, data); err != nil {
		return withCode(exitBroken, fmt.Errorf("traps new: render trap: %w", err))
	}
	if err := pageFile.Execute(&html, data); err != nil {
		return withCode(exitBroken, fmt.Errorf("traps new: render page: %w", err))
	}
	line := "\t\t" + data.Func + "(),\n\t\t" + newTrapMarker
	catalog = bytes.Replace(catalog, []byte("\t\t"+newTrapMarker), []byte(line), 1)
	written := []string{}
	for _, f := range []struct {
		path string
		data []byte
	}{{goPath, goSrc.Bytes()}, {htmlPath, html.Bytes()}, {catalogPath, catalog}} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			for _, w := range written { // nothing half-applied
				if w != catalogPath {
					_ = os.Remove(w)
				}
			}
			return withCode(exitBroken, fmt.Errorf("traps new: write %s: %w", f.path, err))
		}
		written = append(written, f.path)
	}
	fmt.Fprintf(stdout, "created %s and %s, registered in %s\nnext: fill in the TODOs, then `make test LABELS=trap:%s` (the control arm must fire, the guarded arm must hold)\n",
		goPath, htmlPath, catalogPath, id)
	return nil
}

// funcName turns "decoy-delete" into "decoyDelete".
func funcName(id string) string {
	parts := strings.Split(id, "-")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}
