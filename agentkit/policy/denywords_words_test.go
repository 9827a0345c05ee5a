package policy

import "testing"

// The labels people write around the seeds' words: multi-word roots across articles, prepositions
// and possessives; words split by a space or a dot; Chinese and Japanese labels. Each row is stopped
// by the reference policy as a button's name, by the root given; the benign twins beside them pass.
func TestReferenceStopsTheLabelsPeopleWrite(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	deny := []struct{ name, cat, root string }{
		// Two-word seed entries with an article or a preposition between their words.
		{"Conferma l'ordine", "money", "conferma ordin"},
		{"Conferma l’ordine", "money", "conferma ordin"}, // typographic apostrophe
		{"Conferma il tuo ordine", "money", "conferma ordin"},
		{"Conferma dell'ordine", "money", "conferma ordin"},
		{"Chiudi l'account", "deactivation", "chiudi account"},
		{"Chiudi il mio account", "deactivation", "chiudi account"},
		{"Chiudi il tuo account", "deactivation", "chiudi account"},
		{"Blocca l'utente", "deactivation", "blocca utent"},
		{"Blocca questo utente", "deactivation", "blocca utent"},
		{"Rigenera la chiave", "permission_security", "rigenera chiav"},
		{"Rigenera la chiave API", "permission_security", "rigenera chiav"},
		{"Aggiungi un amministratore", "permission_security", "aggiungi amministrator"},
		{"Scarica l'archivio", "mass_data", "scarica archiv"},
		{"Scarica tutto l'archivio", "mass_data", "scarica tutt"},
		{"Cambia l'organizzazione", "leave_context", "cambia organizzazion"},
		{"Cambia la tua azienda", "leave_context", "cambia aziend"},
		{"Download them all", "", ""}, // "them" is no function word: see the benign rows
		{"Accetta tutti i cookie", "consent", "accetta tutt"},
		{"Submit the final version", "irreversible_send", "submit final"},
		{"Log me out", "", ""},
		// A word split by a space or a dot.
		{"Eli mina", "destructive", "elimin"},
		{"Eli.mina", "destructive", "elimin"},
		{"Eli mina pratica", "destructive", "elimin"},
		{"Eli minare", "destructive", "elimin"},
		{"Eli. mina", "destructive", "elimin"},
		{"El imi na", "destructive", "elimin"},
		{"Can cella", "destructive", "cancell"},
		{"Del.ete", "", ""}, // "del" is a function word: a fragment that is one is never joined
		{"Pa ga", "money", "paga$"},
		{"Pass word", "permission_security", "password"},
		{"Es porta", "mass_data", "esport"},
		// Chinese and Japanese labels (seed 004).
		{"删除", "destructive", "删除"},
		{"确认删除", "destructive", "删除"},
		{"删除记录", "destructive", "删除"},
		{"支付", "money", "支付"},
		{"立即购买", "money", "购买"},
		{"转账", "money", "转账"},
		{"退出登录", "leave_context", "退出登录"},
		{"削除", "destructive", "削除"},
		{"削除する", "destructive", "削除"},
		{"送信", "irreversible_send", "送信"},
		{"メッセージを送信", "irreversible_send", "送信"},
		{"Pratica 4 删除", "destructive", "删除"},
		{"删 除", "destructive", "删除"}, // one-character words joined (CompactText)
	}
	page := "http://portale.interno.test/pratiche/1"
	for _, c := range deny {
		if c.root == "" {
			continue // documented misses, kept as rows so the table shows them
		}
		cat, root, ok := ref.Actions.MatchDenyWord(c.name)
		if !ok || cat != c.cat || root != c.root {
			t.Errorf("MatchDenyWord(%q) = %s %q %v; want %s %q", c.name, cat, root, ok, c.cat, c.root)
		}
		d := ref.Decide(Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: c.name}})
		if d.Allow || d.Rule != RuleDenyWord {
			t.Errorf("click on button %q = %s (%s), want %s", c.name, d.Rule, d.Reason, RuleDenyWord)
		}
	}
	benign := []string{
		// Twins of the article forms: another object, a conjunction, a noun between the words.
		"Conferma l'indirizzo", "Conferma e torna all'ordine", "Chiudi la finestra", "Chiudi il pannello dell'account",
		"Blocca lo schermo", "Rigenera la pagina", "Cambia la lingua", "Aggiungi una nota", "Scarica la ricevuta",
		"Download them all", "Log me out", "Torna all'elenco", "Vai alla pagina successiva", "Ordina per data",
		// Twins of the split forms: two real words that only join into a root by accident.
		"In via di definizione", "Era sempre aperta", "Pur gestendo", "Re settings", "Pagina successiva",
		"Con ferma decisione", "Per messo", "A cquisizione", "Del.ete", "Es. pratica 12", "Eli Rossi", "Mina Bianchi",
		// Twins of the CJK words: the neighbouring words that are no deny word.
		"保存", "登录", "确认", "取消", "查看详情", "购物车", "编辑", "保存する", "確認", "送料",
	}
	for _, name := range benign {
		if cat, root, ok := ref.Actions.MatchDenyWord(name); ok {
			t.Errorf("MatchDenyWord(%q) = %q (%s); a benign twin must pass", name, root, cat)
		}
	}
}

// The joins of the third reading are a normalisation: with the text-normalisation guard off they go,
// while the article forms and the CJK words (the meaning of a root) stay.
func TestSplitJoinNeedsTheNormalisationGuard(t *testing.T) {
	ref := mustLoad(t, "reference.yml").WithGuardsOff(Off(GuardTextNormalization))
	page := "http://portale.interno.test/pratiche/1"
	for name, want := range map[string]bool{"Eli mina": false, "Blocca questo utente": true, "确认删除": true} {
		d := ref.Decide(Input{Kind: KindClick, Page: page, Target: &Target{Role: "button", Name: name}})
		if got := d.Rule == RuleDenyWord; got != want {
			t.Errorf("guard off: click on %q refused = %v, want %v (%s)", name, got, want, d.Reason)
		}
	}
}

// A request value carries the same labels: a body value "Conferma l'ordine" or "确认删除" is refused.
func TestRequestValuesReadTheLabelsPeopleWrite(t *testing.T) {
	ref := mustLoad(t, "reference.yml")
	for _, v := range []string{"conferma+l%27ordine", "%E7%A1%AE%E8%AE%A4%E5%88%A0%E9%99%A4", "eli.mina"} {
		if d := ref.DecideRequest(Request{Method: "GET", URL: "http://portale.interno.test/pratiche/1?azione=" + v}); d.Allow {
			t.Errorf("a request value %q is allowed: %s", v, d.Reason)
		}
	}
}

// Fuzz: the matcher never panics and a name matched in one reading is matched again when matched
// twice (no state between calls).
func FuzzMatchDenyWordLabels(f *testing.F) {
	for _, s := range []string{"Conferma l'ordine", "Eli mina", "确认删除", "Eli.mina pratica", "a b c d", "删 除", ""} {
		f.Add(s)
	}
	ref := mustLoad(f, "reference.yml")
	f.Fuzz(func(t *testing.T, s string) {
		c1, r1, ok1 := ref.Actions.MatchDenyWord(s)
		c2, r2, ok2 := ref.Actions.MatchDenyWord(s)
		if c1 != c2 || r1 != r2 || ok1 != ok2 {
			t.Fatalf("MatchDenyWord(%q) differs between calls", s)
		}
	})
}
