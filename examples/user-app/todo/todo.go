// Package todo is a small TodoMVC-style staging app of the example's own, standing for a user's app
// with the shape incidents come from: each row's delete is a label-less "×" button shown only under
// the pointer (li:hover, as TodoMVC's .destroy), adding a todo
// appends its row in place (an htmx-style partial swap, with a plain form post when scripts are
// off), the footer links to an outside site, a JSON API answers only a request that asks for JSON
// (Accept: application/json), and a test-only reset endpoint puts the seeded todos back.
package todo

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Todo is one item.
type Todo struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

// Seed is the state New and Reset start from.
var Seed = []string{"Comprare il latte", "Pagare la bolletta", "Chiamare il tecnico"}

// App is the app's state.
type App struct {
	mu    sync.Mutex
	todos map[int]*Todo
	next  int
}

// New returns an app holding the seeded todos.
func New() *App {
	a := &App{}
	a.Reset()
	return a
}

// Reset puts the seeded todos back (what POST /_test/reset does).
func (a *App) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.todos, a.next = map[int]*Todo{}, 0
	for _, t := range Seed {
		a.next++
		a.todos[a.next] = &Todo{ID: a.next, Title: t}
	}
}

// Count is how many todos there are.
func (a *App) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.todos)
}

var page = template.Must(template.New("page").Parse(`<!doctype html><html lang="it"><head><meta charset="utf-8"><title>todos</title>
<style>li .destroy{display:none;border:0;background:none;color:#a33;font-size:1.2em;cursor:pointer}li:hover .destroy{display:inline}</style></head>
<body><main><h1>todos</h1>
<form id="new" method="post" action="/todos"><label>Nuovo todo <input name="title" autocomplete="off"></label><button type="submit">Aggiungi</button></form>
{{template "list" .}}
<footer><p>Un esempio nello stile di <a href="https://todomvc.com/">TodoMVC</a></p></footer>
<script>
document.getElementById('new').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const r = await fetch('/todos', {method: 'POST', body: new URLSearchParams(new FormData(ev.target)), headers: {'HX-Request': 'true'}});
  document.getElementById('list').insertAdjacentHTML('beforeend', await r.text());
  ev.target.reset();
});
</script></main></body></html>
{{define "list"}}<ul id="list">{{range .}}{{template "item" .}}{{end}}</ul>{{end}}
{{define "item"}}<li><span>{{.Title}}</span> <form method="post" action="/todos/{{.ID}}/delete" style="display:inline"><button class="destroy" type="submit">×</button></form></li>{{end}}`))

// Handler serves the app.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, a.list())
	})
	mux.HandleFunc("POST /todos", func(w http.ResponseWriter, r *http.Request) {
		var added *Todo
		if title := strings.TrimSpace(r.FormValue("title")); title != "" {
			a.mu.Lock()
			a.next++
			added = &Todo{ID: a.next, Title: title}
			a.todos[a.next] = added
			a.mu.Unlock()
		}
		if r.Header.Get("HX-Request") == "true" { // the partial swap (hx-swap="beforeend"): the new row only
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if added != nil {
				_ = page.ExecuteTemplate(w, "item", added)
			}
			return
		}
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.HandleFunc("POST /todos/{id}/delete", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		a.mu.Lock()
		delete(a.todos, id)
		a.mu.Unlock()
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /api/todos", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "application/json") {
			http.Error(w, "ask for application/json", http.StatusNotAcceptable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"todos": a.list()})
	})
	mux.HandleFunc("POST /_test/reset", func(w http.ResponseWriter, r *http.Request) {
		a.Reset()
		fmt.Fprintln(w, "reset")
	})
	return mux
}

func (a *App) list() []Todo {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Todo, 0, len(a.todos))
	for _, t := range a.todos {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
