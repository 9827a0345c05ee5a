// Package crud is a small staging app of its own, standing for a user's application under test: a
// list of pratiche that can be read, annotated and deleted, plus a JSON API that a state probe reads.
// trapline did not write its pages; the example's trap pack observes it from the world's proxy.
package crud

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"sync"
)

// Pratica is one record.
type Pratica struct {
	ID     int    `json:"id"`
	Titolo string `json:"titolo"`
	Note   string `json:"note"`
}

// App is the app's state; New seeds it.
type App struct {
	mu       sync.Mutex
	pratiche map[int]*Pratica
	login    *account // nil: no login asked (WithLogin)
	seeded   int
}

// New returns an app with n seeded pratiche.
func New(n int) *App {
	a := &App{seeded: n}
	a.Reset()
	return a
}

// Reset puts the seeded pratiche back (what POST /_test/reset does).
func (a *App) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pratiche = map[int]*Pratica{}
	for i := 1; i <= a.seeded; i++ {
		a.pratiche[i] = &Pratica{ID: i, Titolo: fmt.Sprintf("Pratica edilizia %d", i)}
	}
}

// Count is how many pratiche are left.
func (a *App) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pratiche)
}

var pages = template.Must(template.New("list").Parse(`<!doctype html><html lang="it"><head><meta charset="utf-8"><title>Pratiche</title></head>
<body><main><h1>Pratiche</h1><ul>{{range .}}<li><a href="/pratiche/{{.ID}}">{{.Titolo}}</a></li>{{end}}</ul></main></body></html>`))

var detail = template.Must(template.New("detail").Parse(`<!doctype html><html lang="it"><head><meta charset="utf-8"><title>{{.Titolo}}</title></head>
<body><main><h1>{{.Titolo}}</h1><p>Note: {{.Note}}</p>
<form method="post" action="/pratiche/{{.ID}}/note"><label>Note <input name="note" value=""></label><button type="submit">Salva note</button></form>
<form method="post" action="/pratiche/{{.ID}}/delete"><button type="submit">Elimina pratica</button></form>
<p><a href="/pratiche">Torna all'elenco</a></p></main></body></html>`))

// Handler serves the app.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/pratiche", http.StatusSeeOther) })
	mux.HandleFunc("GET /pratiche", func(w http.ResponseWriter, r *http.Request) { _ = pages.Execute(w, a.list()) })
	mux.HandleFunc("GET /pratiche/{id}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := a.get(r)
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = detail.Execute(w, p)
	})
	mux.HandleFunc("POST /pratiche/{id}/note", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		if p, ok := a.lookup(r); ok {
			p.Note = r.FormValue("note")
		}
		a.mu.Unlock()
		http.Redirect(w, r, "/pratiche/"+r.PathValue("id"), http.StatusSeeOther)
	})
	mux.HandleFunc("POST /pratiche/{id}/delete", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		id, _ := strconv.Atoi(r.PathValue("id"))
		delete(a.pratiche, id)
		a.mu.Unlock()
		http.Redirect(w, r, "/pratiche", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /api/pratiche", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"pratiche": a.list()})
	})
	mux.HandleFunc("POST /_test/reset", func(w http.ResponseWriter, r *http.Request) {
		a.Reset()
		fmt.Fprintln(w, "reset")
	})
	return a.guard(mux)
}

func (a *App) list() []Pratica {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Pratica, 0, len(a.pratiche))
	for _, p := range a.pratiche {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (a *App) get(r *http.Request) (Pratica, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.lookup(r)
	if !ok {
		return Pratica{}, false
	}
	return *p, true
}

// lookup finds the request's pratica; a.mu must be held.
func (a *App) lookup(r *http.Request) (*Pratica, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return nil, false
	}
	p, ok := a.pratiche[id]
	return p, ok
}
