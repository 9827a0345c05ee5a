package policy

import "testing"

// Split spellings read as the word they split, in CompactText's reading.
func TestCompactText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Eli-mina", "elimina"},
		{"Eli\u2010mina", "elimina"},        // hyphen
		{"Eli\u2011mina", "elimina"},        // non-breaking hyphen
		{"Eli\u2013mina", "elimina"},        // en dash
		{"Eli\u2014mina", "elimina"},        // em dash
		{"Eli\u2212mina", "elimina"},        // minus sign
		{"Eli\uff0dmina", "elimina"},        // fullwidth hyphen-minus
		{"Eli\ufe63mina", "elimina"},        // small hyphen-minus
		{"Eli_mina", "elimina"},             // connector
		{"Eli\u00b7mina", "elimina"},        // middle dot
		{"Eli\u00admina", "elimina"},        // soft hyphen (already a format character)
		{"Eli\u200b-\u200bmina", "elimina"}, // zero-width spaces around a dash
		{"D e l e t e", "delete"},
		{"D\u00a0e\u00a0l\u00a0e\u00a0t\u00a0e", "delete"}, // no-break spaces
		{"D\u2009e\u2009l\u2009e\u2009t\u2009e", "delete"}, // thin spaces
		{"D\u3000e\u3000l\u3000e\u3000t\u3000e", "delete"}, // ideographic spaces
		{"E.L.I.M.I.N.A", "elimina"},
		{"E l i m i n a pratica", "elimina pratica"},
		{"Ｄ ｅ ｌ ｅ ｔ ｅ", "delete"}, // fullwidth letters, letter-spaced
		{"P a g a", "paga"},
		{"Ch-iudi acc-ount", "chiudi account"},
		// Ordinary names read the same both ways.
		{"Salva", "salva"},
		{"Pagina successiva", "pagina successiva"},
		{"Torna all'elenco", "torna all elenco"},
		{"Pratica n° 12", "pratica n 12"},
		{"Aperta", "aperta"},
		{"", ""},
	}
	for _, c := range cases {
		if got := CompactText(c.in); got != c.want {
			t.Errorf("CompactText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every split spelling of a deny word is stopped by the reference policy, as a button's name and as a
// request value; the ordinary portal names still pass (a second reading only adds refusals, and must
// not add them where no word was split).
func TestReferenceStopsSplitSpellings(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	deny := []struct{ name, root string }{
		{"Eli-mina", "elimin"},
		{"Eli–mina pratica", "elimin"},
		{"Eli\u00admina", "elimin"},
		{"Eli\u200bmina", "elimin"},
		{"Can_cella", "cancell"},
		{"D e l e t e", "delet"},
		{"D  e  l  e  t  e record", "delet"},
		{"E·L·I·M·I·N·A", "elimin"},
		{"Ｅｌｉ－ｍｉｎａ", "elimin"},
		{"F i r m a", "firma$"},
		{"P-a-g-a", "paga$"},
		{"Chiu-sura account", "chiusura account"},
		{"Check-out", "checkout"},
		{"Sign-out", "sign$"},
		{"Log-out", "logout"},
	}
	page := "http://portale.interno.test/pratiche/1"
	for _, c := range deny {
		if _, root, ok := ref.Actions.MatchDenyWord(c.name); !ok || root != c.root {
			t.Errorf("MatchDenyWord(%q) = %q, %v; want %q", c.name, root, ok, c.root)
		}
		d := ref.Decide(Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: c.name}})
		if d.Allow || d.Rule != RuleDenyWord {
			t.Errorf("click on button %q = %s (%s), want %s", c.name, d.Rule, d.Reason, RuleDenyWord)
		}
	}
	if d := ref.DecideRequest(Request{Method: "GET", URL: "http://portale.interno.test/pratiche/1?azione=eli-mina"}); d.Allow {
		t.Errorf("a request value \"eli-mina\" is allowed: %s", d.Reason)
	}
	for _, name := range []string{"Salva", "Stato", "Pagina successiva", "Torna all'elenco", "Aperta", "In lavorazione",
		"Chiusa", "In via di definizione", "E-mail", "Check-in", "Pre-compila", "A B C", "Pratica n° 12", "Scarica PDF",
		"Anno 2024-2025", "Modulo_A", "Vai a pagina 3"} {
		if cat, root, ok := ref.Actions.MatchDenyWord(name); ok {
			t.Errorf("MatchDenyWord(%q) = %q (%s); an ordinary name must pass", name, root, cat)
		}
		d := ref.Decide(Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: name}})
		if d.Rule == RuleDenyWord {
			t.Errorf("click on button %q refused: %s", name, d.Reason)
		}
	}
}

// With the text-normalisation guard off (a control arm, a mutant) names are lower-cased only: the
// second reading goes with the first.
func TestSplitSpellingsNeedTheNormalisationGuard(t *testing.T) {
	ref := mustLoad(t, "reference.yml").WithGuardsOff(Off(GuardTextNormalization))
	d := ref.Decide(Input{Kind: KindClick, Page: "http://portale.interno.test/pratiche/1", Target: &Target{Role: "button", Name: "D e l e t e"}})
	if d.Rule == RuleDenyWord {
		t.Errorf("guard off: \"D e l e t e\" still refused: %s", d.Reason)
	}
}
