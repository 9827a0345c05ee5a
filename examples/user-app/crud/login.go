package crud

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"
)

// SessionCookie is the cookie a login sets: the app's session.
const SessionCookie = "crud_sessione"

// account is the one test account of an app that asks for a login (WithLogin).
type account struct {
	user, password string
	session        string // the session a login gave out; "" before the first
}

// WithLogin makes every page of the app but its login page and its JSON API ask for a login as
// user with password first: a request without the session is sent to /login and changes nothing.
func (a *App) WithLogin(user, password string) *App {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.login = &account{user: user, password: password}
	return a
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html><html lang="it"><head><meta charset="utf-8"><title>Accesso</title></head>
<body><main><h1>Accesso</h1>{{if .}}<p role="alert">Credenziali errate</p>{{end}}
<form method="post" action="/login"><label>Utente <input name="utente" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Accedi</button></form></main></body></html>`))

// guard serves next to a request with the session, the login page's own routes, the JSON API (the
// state probe's) and the test-only reset to anyone; it sends every other page to the login page and
// refuses every other change (401).
func (a *App) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		acc := a.login
		a.mu.Unlock()
		switch {
		case acc == nil, strings.HasPrefix(r.URL.Path, "/api/"), r.URL.Path == "/_test/reset":
			next.ServeHTTP(w, r)
		case r.URL.Path == "/login" && r.Method == http.MethodGet:
			_ = loginPage.Execute(w, false)
		case r.URL.Path == "/login" && r.Method == http.MethodPost:
			a.logIn(w, r, acc)
		case a.loggedIn(r):
			next.ServeHTTP(w, r)
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			http.Redirect(w, r, "/login", http.StatusSeeOther)
		default:
			http.Error(w, "login richiesto", http.StatusUnauthorized)
		}
	})
}

// logIn checks the posted account: right, it sets the session cookie and goes to the list; wrong,
// it shows the form again.
func (a *App) logIn(w http.ResponseWriter, r *http.Request, acc *account) {
	user, pw := r.PostFormValue("utente"), r.PostFormValue("password")
	if user != acc.user || subtle.ConstantTimeCompare([]byte(pw), []byte(acc.password)) != 1 {
		w.WriteHeader(http.StatusUnauthorized)
		_ = loginPage.Execute(w, true)
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	a.mu.Lock()
	acc.session = hex.EncodeToString(b)
	session := acc.session
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: session, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/pratiche", http.StatusSeeOther)
}

func (a *App) loggedIn(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.login.session != "" && subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.login.session)) == 1
}
