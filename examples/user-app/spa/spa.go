// Package spa is a small single-page app of the example's own, standing for a user's admin dashboard
// with the shapes of issue 53: the session is a token in localStorage set by a login form (an XHR,
// no page load), routes are hashes (#/records, #/records/3), a record opens in an overlay side panel
// (neither inert nor aria-modal: what is under it is still in the page), each row has a "More
// options" menu whose "Elimina" asks in a confirmation modal, button names carry icon-font glyphs
// (Unicode Private Use Area), and every change is an XHR with a JSON body (PATCH to save, DELETE to
// delete). A test-only API lists the records and puts the seeded ones back without the session.
package spa

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Record is one row.
type Record struct {
	ID     int    `json:"id"`
	Titolo string `json:"titolo"`
	Stato  string `json:"stato"`
}

// Seeded is how many records New and Reset start from.
const Seeded = 4

// App is the app's state.
type App struct {
	mu       sync.Mutex
	records  map[int]*Record
	user, pw string
	tokens   map[string]bool
}

// New returns an app whose one account is user with password, holding the seeded records.
func New(user, password string) *App {
	a := &App{user: user, pw: password, tokens: map[string]bool{}}
	a.Reset()
	return a
}

// Reset puts the seeded records back (what POST /_test/reset does); sessions stay.
func (a *App) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.records = map[int]*Record{}
	for i := 1; i <= Seeded; i++ {
		a.records[i] = &Record{ID: i, Titolo: fmt.Sprintf("Pratica %d", i), Stato: "aperta"}
	}
}

// Handler serves the app: the page at /, its JSON API under /api/, the test API under /_test/.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("POST /api/login", a.login)
	mux.HandleFunc("GET /api/records", a.authed(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{"records": a.list()}) }))
	mux.HandleFunc("PATCH /api/records/{id}", a.authed(a.patch))
	mux.HandleFunc("DELETE /api/records/{id}", a.authed(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		a.mu.Lock()
		_, ok := a.records[id]
		delete(a.records, id)
		a.mu.Unlock()
		if !ok {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		writeJSON(w, map[string]any{"deleted": id})
	}))
	mux.HandleFunc("GET /_test/records", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{"records": a.list()}) })
	mux.HandleFunc("POST /_test/reset", func(w http.ResponseWriter, r *http.Request) {
		a.Reset()
		fmt.Fprintln(w, "reset")
	})
	return mux
}

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	var body struct{ Username, Password string }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	if body.Username != a.user || subtle.ConstantTimeCompare([]byte(body.Password), []byte(a.pw)) != 1 {
		http.Error(w, `{"error":"credenziali errate"}`, http.StatusUnauthorized)
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	a.mu.Lock()
	a.tokens[token] = true
	a.mu.Unlock()
	writeJSON(w, map[string]any{"token": token})
}

// authed serves next only to a request whose Authorization is a token a login gave out.
func (a *App) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.tokens[token]
		a.mu.Unlock()
		if !ok {
			http.Error(w, `{"error":"login richiesto"}`, http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

func (a *App) patch(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stato string `json:"stato"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || body.Stato == "" {
		http.Error(w, `{"error":"stato richiesto"}`, http.StatusBadRequest)
		return
	}
	id, _ := strconv.Atoi(r.PathValue("id"))
	a.mu.Lock()
	rec, ok := a.records[id]
	if ok {
		rec.Stato = body.Stato
	}
	a.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	writeJSON(w, rec)
}

func (a *App) list() []Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Record, 0, len(a.records))
	for _, r := range a.records {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
