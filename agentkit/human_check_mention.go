package agentkit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// checkRoles are the roles a human check is shown or answered in: its frame (reCAPTCHA, hCaptcha), its
// checkbox ("Non sono un robot") and the input its text is typed into. A check named there is a
// check, whatever the words around it.
var checkRoles = map[string]bool{"iframe": true, "checkbox": true, "textbox": true, "spinbutton": true, "searchbox": true, "combobox": true}

// quotation matches a quoted span: what a page quotes ("il messaggio «verifica di essere umano» è una
// truffa") is a mention, not a request.
var quotation = regexp.MustCompile(`“[^”]*”|«[^»]*»|"[^"]*"|„[^“”]*[“”]|‘[^’]*’`)

// sentence matches one sentence of a text with its end mark, if any.
var sentence = regexp.MustCompile(`[^.!?;:\n]+[.!?;:\n]*`)

// negators are the normalised words that, among the few before a mention, say the page does not ask
// for one ("Non usiamo CAPTCHA", "senza captcha", "we never show a CAPTCHA").
var negators = map[string]bool{"non": true, "no": true, "senza": true, "nessun": true, "nessuna": true, "nessuno": true,
	"niente": true, "mai": true, "never": true, "without": true, "not": true, "nor": true, "don": true, "dont": true,
	"doesn": true, "doesnt": true, "won": true, "wont": true}

// negationReach is how many words before a mention a negator reaches.
const negationReach = 4

// faqHeadings are normalised phrases of a heading that make the page a FAQ: what it says of CAPTCHAs
// outside a check's own frame, checkbox or input is an answer, not a check.
var faqHeadings = []string{" faq ", " domande frequenti ", " frequently asked questions ", " domande e risposte "}

// minCodeBoxes is how many one-character inputs make a code split into boxes.
const minCodeBoxes = 4

// humanCheck is why the page asks to prove a human is there, "" when it does not. A CAPTCHA word or
// a human-check phrase counts in a check's own frame, checkbox or input (checkRoles) always; anywhere
// else only when the page is no FAQ and the text asks rather than mentions (mentionOnly): a negation,
// a quotation or a question about CAPTCHAs ends no run. Unclear text still ends it: fail closed.
func humanCheck(o *observe.Observation) string {
	faq := isFAQ(o)
	for _, n := range o.Nodes {
		for _, s := range []string{n.Name, n.Text, n.Placeholder} {
			if s == "" {
				continue
			}
			text := " " + policy.NormalizeText(s) + " "
			if !hasCaptchaWord(text) && !containsAny(text, captchaPhrases) {
				continue
			}
			if checkRoles[n.Role] || (!faq && !mentionOnly(s)) {
				return "the page asks to prove a human is there (" + excerpt(text) + "): the agent never solves a CAPTCHA; a person is needed"
			}
		}
	}
	return ""
}

// isFAQ reports a page with a FAQ heading.
func isFAQ(o *observe.Observation) bool {
	for _, n := range o.Nodes {
		if n.Role == "heading" && containsAny(" "+policy.NormalizeText(n.Name+" "+n.Text)+" ", faqHeadings) {
			return true
		}
	}
	return false
}

// mentionOnly reports a text whose every naming of a human check is a mention: quoted, negated
// (negators up to negationReach words before it, in its sentence), or a CAPTCHA word in a question
// ("Cos'è un CAPTCHA?"). A human-check phrase in a question still asks ("Sei un robot?").
func mentionOnly(raw string) bool {
	for _, sent := range sentence.FindAllString(quotation.ReplaceAllString(raw, " "), -1) {
		question := strings.HasSuffix(strings.TrimSpace(sent), "?")
		words := strings.Fields(policy.NormalizeText(sent))
		for i, w := range words {
			if strings.Contains(w, "captcha") && !question && !negated(words, i) {
				return false
			}
		}
		text := " " + strings.Join(words, " ") + " "
		for _, p := range captchaPhrases {
			for at := 0; ; {
				j := strings.Index(text[at:], p)
				if j < 0 {
					break
				}
				if !negated(words, strings.Count(text[:at+j+1], " ")-1) { // the phrase's first word
					return false
				}
				at += j + 1
			}
		}
	}
	return true
}

// negated reports a negator among the negationReach words before words[i].
func negated(words []string, i int) bool {
	for k := max(0, i-negationReach); k < i && k < len(words); k++ {
		if negators[words[k]] {
			return true
		}
	}
	return false
}

// codeBoxes is why the page asks for a one-time code by its inputs alone, "" when it does not: a code
// split into one-character boxes (minCodeBoxes or more visible inputs of maxlength 1) or an input
// marked for one (autocomplete="one-time-code"), as the browser edge counted them
// (observe.Observation.CodeBoxes, CodeInputs); no phrase needs to stand next to them.
func codeBoxes(o *observe.Observation) string {
	switch {
	case o.CodeInputs > 0:
		return fmt.Sprintf("the page has %d input(s) marked for a one-time code (autocomplete one-time-code): the agent never types one; a person is needed", o.CodeInputs)
	case o.CodeBoxes >= minCodeBoxes:
		return fmt.Sprintf("the page asks for a code split into %d one-character boxes: the agent never types a one-time code; a person is needed", o.CodeBoxes)
	}
	return ""
}
