// Package policy is the boundary of the reference agent: a strictly validated YAML policy and pure
// decisions on proposed actions and network requests. It imports no browser and no proxy and does
// no I/O except reading the file in Load; Decide takes the run's Usage as input instead of reading
// a clock.
//
// # Example
//
//	p, err := policy.Load("policies/reference.yml")
//	if err != nil {
//		var errs policy.Errors // every problem, each with file, line and field path
//		errors.As(err, &errs)
//		return err
//	}
//	d := p.Decide(policy.Input{
//		Kind:   policy.KindClick,
//		Target: &policy.Target{Role: "button", Name: "Elimina pratica"},
//		Page:   "http://portale.interno.test/pratiche/4",
//		Usage:  policy.Usage{Actions: 3, Elapsed: 20 * time.Second},
//	})
//	// d.Allow == false, d.Rule == policy.RuleDenyWord,
//	// d.Reason == `name "Elimina pratica" matches deny word "elimin" (destructive)`
//
// The route gate and the egress proxy call DecideRequest (one request) and DecideHost (a CONNECT
// tunnel or WebSocket), so browser and network are fenced by the same rules.
//
// # Schema (version 1)
//
//	version: 1                   # optional (omitted means 1); the only version
//	mode: act                    # act | observe (read-only run: only GET/HEAD/OPTIONS leave the browser)
//	navigation:
//	  allow:                     # required, non-empty
//	    - host: portale.interno.test   # an origin: exact host, normalised (NormalizeHost); see Origins below
//	      paths: ["^/$", "^/pratiche(/.*)?$"]   # required, non-empty; regexes on the normalised path
//	  deny_paths: ["^/admin", "/elimina"]        # regexes; win over allow, on every host
//	  static_assets: [static.interno.test]       # hosts for sub-resources only, never navigations
//	  on_violation: abort_and_log                # abort_and_log | block_and_log
//	actions:
//	  unnamed: deny              # deny | allow: acting on elements with no accessible name
//	  deny_words:                # free-form category -> word roots
//	    destructive: [elimin, delete]
//	    irreversible_send: [invia definitiv, firma$]
//	  exceptions:                # role + exact accessible name + page path regex, all required
//	    - {role: button, name: "Esporta PDF pratica", page: "^/pratiche/[0-9]+$"}
//	  writes:                    # the only non-GET/HEAD/OPTIONS requests allowed
//	    - {method: POST, path: "^/pratiche/[0-9]+/stato$"}   # method "*" means any
//	  require_approval:          # the third decision, Ask: a person confirms (see Approval)
//	    categories: [money]      # deny-word categories that ask instead of deny
//	    writes: []               # form submissions that ask; kinds: action kinds that always ask
//	budget: {max_actions: 50, max_navigations: 30, max_seconds: 120, max_same_action_repeats: 3,
//	         max_stuck_actions: 6, max_tokens: 200000, max_decision_seconds: 30}
//	downloads: block             # block | allow
//	uploads: block               # block | allow
//	dialogs: dismiss_and_log     # dismiss_and_log | accept | ask (the approver), or rules:
//	# dialogs:
//	#   default: dismiss_and_log   # what no rule matches gets
//	#   rules:                     # text: regex on the normalised message; after: the opening action's element
//	#     - {text: "confermi il salvataggio", after: {role: button, name: "^salva$"}, then: accept}
//	#     - {text: "sei sicuro", then: ask}   # then: accept | dismiss_and_log | ask; two that disagree dismiss
//	permissions: deny            # deny | allow
//	popups: block                # block | allow
//	service_workers: block       # block | allow
//
// Validation is strict: unknown or duplicate keys, wrong types, invalid regexes or hosts, an empty
// navigation.allow, budgets of zero or less, values outside an enum, a max_same_action_repeats below 2 and a
// wrong version are all errors, collected together as Errors whose lines read
//
//	policies/x.yml:12: navigation.allow[0].paths[1]: invalid regex "(": missing closing )
//
// Dialog rules (DecideDialog, DialogRule) read a dialog's message as deny words read a name (below)
// and the element of the action that opened it; every matching rule is considered, and two that
// disagree dismiss the dialog.
//
// Omitted fields take the safe default: mode act, on_violation abort_and_log, unnamed deny, every
// capability at its restrictive value, budgets from DefaultBudget. Omitted deny_words and writes
// are empty (no deny words, no writes).
//
// # Deny words
//
// Names and roots are both reduced by NormalizeText (compatibility forms, zero-width and format
// characters, Cyrillic and Greek look-alikes, accents, case, punctuation), then split into words.
// A root is one or more words:
//   - a root word matches a word of the name that starts with it: "elimin" matches "Elimina",
//     "eliminazione", "ELIMINARE", "Ｅlimina", "Eli\u200bmina" and "Еlimina" (Cyrillic Е), but not
//     "Dettaglio";
//   - a multi-word root matches as many consecutive words, each by prefix: "scarica tutt" matches
//     "Scarica tutto" and "scarica tutte le pratiche" but not "Scarica PDF";
//   - a root word ending in "$" must equal the word: "firma$" matches "Firma" and "Firma e invia"
//     but not "Firmato" (the reference policy stops that one by "firmat"). A root written with a trailing space ("firma "), as in substring-style
//     lists, means the same.
//   - between two words of a multi-word root, a name may put up to three articles, prepositions,
//     possessives or demonstratives (the functionWords table, Italian and English): "conferma ordin"
//     matches "Conferma l'ordine" and "Conferma il tuo ordine", but not "Conferma e torna all'ordine"
//     nor "Chiudi il pannello dell'account" for "chiudi account";
//   - a root word in Han, Hiragana, Katakana or Hangul matches anywhere inside a word of the name,
//     since those scripts put no spaces between words: "删除" matches "确认删除", "削除" "削除する".
//
// A name is read three times: as NormalizeText gives it; as CompactText gives it, with dashes,
// connectors and middle dots joining their neighbours and runs of one-letter words joined ("Eli-mina",
// "Eli–mina", "D e l e t e", "E.L.I.M.I.N.A" read "elimina", "delete"); and as NormalizeText gives it
// with the fragments of a word split by a space or a dot joined where they make a root word ("Eli
// mina", "Eli.mina", "Can cella"). A fragment that is a function word is never joined ("In via di
// definizione" is not "invia"), nor one whose join runs more than three letters past the root word
// ("Era sempre" is not "erase"). A root found in any reading matches.
//
// Matching is by word start, not substring, so ordinary portal words stay usable ("Pagina
// successiva" does not contain the root "pay", "Torna all'elenco" not "download all").
//
// # Origins
//
// A navigation.allow entry is an origin, as the seeds' allowlist is: scheme, host and port
// (origin.go). "portale.interno.test" allows http on port 80 and https on 443, the default port
// of each scheme, and no other port; "portale.interno.test:8443" allows that port only (http or
// https); "https://portale.interno.test" allows https on 443 only and "https://portale.interno.test:8443"
// https on 8443 only. The scheme may be http or https; a path, query or user information is refused
// (list paths under paths). A CONNECT tunnel (DecideHost) knows a host and port only: it is allowed
// when some scheme the entry allows would use that port. static_assets entries are hosts (or
// host:port) as before.
//
// # Normalised URLs
//
// Hosts go through NormalizeHost and paths through NormalizePath before any rule sees them, so
// "http://portale.interno.test@evil.example.test/", "HTTP://PORTALE.INTERNO.TEST./%61dmin" and
// "/pratiche/%2e%2e/admin" are judged by their real host and path. Path regexes should be written
// in lower case: paths are lower-cased before matching.
package policy
