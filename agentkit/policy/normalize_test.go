package policy

import (
	"errors"
	"testing"
)

func TestNormalizeText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Elimina", "elimina"},
		{"ELIMINA", "elimina"},
		{"Ｅlimina", "elimina"},             // fullwidth E
		{"Eli\u200bmina", "elimina"},       // zero-width space
		{"Eli\u200c\u200dmina", "elimina"}, // ZWNJ, ZWJ
		{"\ufeffEli\u2060mina", "elimina"}, // BOM, word joiner
		{"Eli\u00admina", "elimina"},       // soft hyphen
		{"Eli\u3164mina", "elimina"},       // Hangul filler
		{"Еlimina", "elimina"},             // Cyrillic Е
		{"еlіmіnа", "elimina"},             // Cyrillic е, і, а
		{"Εlιmινα", "elimiva"},             // Greek: ν looks like v, not n
		{"ΕLΙΜΙΝΑ", "elimina"},             // Greek capitals
		{"ΡΑΥ", "pay"},                     // Greek capitals spelling "PAY"
		{"Cancellazione", "cancellazione"},
		{"Disattivà", "disattiva"},
		{"e\u0301limina", "elimina"}, // combining accent
		{"𝐄𝐥𝐢𝐦𝐢𝐧𝐚", "elimina"},       // mathematical bold
		{"  Torna   all'elenco!  ", "torna all elenco"},
		{"Pagina\tsuccessiva\n→", "pagina successiva"},
		{"Pratica n° 12", "pratica n 12"},
		{"", ""},
		{"\u200b\u200b", ""},
		{"\xff\xfeabc", "abc"},
	}
	for _, c := range cases {
		if got := NormalizeText(c.in); got != c.want {
			t.Errorf("NormalizeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizePath(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/admin", "/admin"},
		{"/%61dmin", "/admin"},
		{"/pratiche/../admin", "/admin"},
		{"//ADMIN", "/admin"},
		{"/pratiche/%2e%2e/admin", "/admin"},
		{"/pratiche/%2E%2E%2Fadmin", "/admin"},
		{"/pratiche/%252e%252e/admin", "/admin"},
		{"/pratiche/%25252e%25252e/admin", "/admin"},
		{`/pratiche\..\admin`, "/admin"},
		{"/../../admin", "/admin"},
		{"/./pratiche/./7", "/pratiche/7"},
		{"/pratiche/", "/pratiche/"},
		{"/pratiche/7/..", "/pratiche/"},
		{"pratiche", "/pratiche"},
		{"/Pratiche//7///stato", "/pratiche/7/stato"},
		{"/...", "/..."},
	}
	for _, c := range cases {
		got, err := NormalizePath(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizePath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"/%zz", "/100%", "/%2", "/%25zz", "/%2525252525"} {
		if got, err := NormalizePath(bad); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("NormalizePath(%q) = %q, %v; want ErrInvalidPath", bad, got, err)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	cases := []struct{ in, host, port string }{
		{"portale.interno.test", "portale.interno.test", ""},
		{"PORTALE.Interno.TEST", "portale.interno.test", ""},
		{"portale.interno.test.", "portale.interno.test", ""},
		{"portale.interno.test.:8080", "portale.interno.test", "8080"},
		{"portale.interno.test:0443", "portale.interno.test", "443"},
		{"bücher.test", "xn--bcher-kva.test", ""},
		{"BÜCHER.test", "xn--bcher-kva.test", ""},
		{"ｐｏｒｔａｌｅ.interno.test", "portale.interno.test", ""}, // fullwidth letters map to ASCII
		{"portale。interno。test", "portale.interno.test", ""}, // ideographic full stops
		{"127.0.0.1:80", "127.0.0.1", "80"},
		{"[::1]:8080", "::1", "8080"},
		{"[::FFFF:7f00:1]", "::ffff:127.0.0.1", ""},
		{"::1", "::1", ""},
	}
	for _, c := range cases {
		h, p, err := NormalizeHost(c.in)
		if err != nil || h != c.host || p != c.port {
			t.Errorf("NormalizeHost(%q) = %q, %q, %v; want %q, %q", c.in, h, p, err, c.host, c.port)
		}
	}
	for _, bad := range []string{"", ".", ":80", "a b.test", "*.test", "a..test", "host:http", "host:70000", "[::1", "[::1]x", "[1.2.3.4]", "1:2:zz::"} {
		if h, p, err := NormalizeHost(bad); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("NormalizeHost(%q) = %q, %q, %v; want ErrInvalidHost", bad, h, p, err)
		}
	}
}

func TestMatchDenyWord(t *testing.T) {
	a := mustLoad(t, "reference.yml").Actions
	deny := []struct{ name, category, root string }{
		{"Elimina pratica", "destructive", "elimin"},
		{"Ｅlimina", "destructive", "elimin"},
		{"Eli\u200bmina", "destructive", "elimin"},
		{"Еlimina", "destructive", "elimin"},
		{"ELIMINA", "destructive", "elimin"},
		{"Cancella", "destructive", "cancell"},
		{"Annulla pratica", "destructive", "annull"},
		{"Delete record", "destructive", "delet"},
		{"Disattiva utente", "deactivation", "disattiv"},
		{"Revoca accesso", "deactivation", "revoc"},
		{"Effettua pagamento", "money", "pagament"},
		{"Invia definitivamente", "irreversible_send", "invia"},
		{"Firma", "irreversible_send", "firma$"},
		{"Firma e invia", "irreversible_send", "invia"}, // roots in their order: invia comes first,
		{"Submit final answer", "irreversible_send", "submit final"},
		{"Sign and confirm", "irreversible_send", "sign$"},
		{"Sign", "irreversible_send", "sign$"},
		{"Invia", "irreversible_send", "invia"},
		{"Paga", "money", "paga$"},
		{"Reset", "permission_security", "reset"},
		{"Modifica permessi", "permission_security", "permess"},
		{"Re-enter your password", "permission_security", "password"},
		{"Esporta tutto", "mass_data", "esport"},
		{"Scarica tutte le pratiche", "mass_data", "scarica tutt"},
		{"Download all", "mass_data", "download all"},
		{"Esci", "leave_context", "esci"},
		{"Log out", "leave_context", "logout"},     // "log"+"out" joined (joinFragments)
		{"Sign Out", "irreversible_send", "sign$"}, // sign$ stops it before leave_context is reached
		{"Cambia azienda", "leave_context", "cambia aziend"},
	}
	for _, c := range deny {
		cat, root, ok := a.MatchDenyWord(c.name)
		if !ok || cat != c.category || root != c.root {
			t.Errorf("MatchDenyWord(%q) = %q, %q, %v; want %q, %q", c.name, cat, root, ok, c.category, c.root)
		}
	}
	// Ordinary portal words, and near misses of multi-word and whole-word roots, must pass.
	allow := []string{
		"Salva", "Stato", "Pratiche", "Pagina successiva", "Dettaglio", "Torna all'elenco",
		"Aperta", "In lavorazione", "Chiusa", "Cerca", "Pagina precedente", "Pratica 12",
		"Aggiorna stato", "Modifica", "Conferma", "Avanti", "Indietro", "Home", "Scarica PDF",
		"Signal", "Pagina", "Firmamento", "Invitati", "Pubblicità esterna", "Uscita", "Check outcome", "Rinviata", "Log", "Cambia stato", "Chiudi", "Blocca note", "Download", "Tutte le pratiche", "",
	}
	for _, name := range allow {
		if cat, root, ok := a.MatchDenyWord(name); ok {
			t.Errorf("MatchDenyWord(%q) = %q (%s); ordinary portal words must pass", name, root, cat)
		}
	}
}

func TestMatchDenyWordHandBuilt(t *testing.T) {
	a := Actions{DenyWords: map[string][]string{"d": {"Elimin", "firma "}}}
	if _, root, ok := a.MatchDenyWord("ELIMINA"); !ok || root != "elimin" {
		t.Errorf("hand-built Actions: got %q, %v", root, ok)
	}
	if _, _, ok := a.MatchDenyWord("Firmato"); ok {
		t.Errorf(`"firma " must match the whole word only`)
	}
}

func TestCompileRoot(t *testing.T) {
	cases := []struct{ in, want string }{
		{"elimin", "elimin"},
		{"firma ", "firma$"},
		{"firma$", "firma$"},
		{"  Invia   DEFINITIV ", "invia definitiv$"},
		{"sign$ and", "sign$ and"},
		{"all'elenco", "all elenco"},
		{"Ｅlimin", "elimin"},
	}
	for _, c := range cases {
		got, _, err := compileRoot(c.in)
		if err != nil || got != c.want {
			t.Errorf("compileRoot(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, _, err := compileRoot(" $ "); err == nil {
		t.Errorf("compileRoot of punctuation only: want an error")
	}
}
