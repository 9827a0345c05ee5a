package agentkit

import (
	"strings"

	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/policy"
)

// RuleHumanCheck is the loop's rule for a page that asks to prove a human is there (a CAPTCHA, "verify
// you are human", "non sono un robot"): the run ends Inconclusive; the agent never solves one.
const RuleHumanCheck = policy.RuleHumanCheck

// RuleOneTimeCode is the loop's rule for a page that asks for a one-time code ("Codice monouso",
// "One-time code", "Codice SMS", "verification code"): the run ends Inconclusive; the agent never
// types one. A code sent to a person's phone or mail is that person's to give.
const RuleOneTimeCode = policy.RuleOneTimeCode

// captchaPhrases are normalised phrases (policy.NormalizeText, spaces around) that name a human check.
var captchaPhrases = []string{
	" verify you are human ", " verify that you are human ", " verify you re human ", " confirm you are human ",
	" prove you are human ", " are you human ", " are you a robot ", " not a robot ", " human verification ",
	" non sono un robot ", " non sei un robot ", " sei un robot ", " verifica di essere umano ",
	" verifica di essere un essere umano ", " verifica che sei umano ", " verifica di non essere un robot ",
	" conferma di essere umano ", " conferma di non essere un robot ", " dimostra di essere umano ",
	" dimostra di non essere un robot ", " verifica umana ", " controllo anti robot ", " antirobot ",
}

// otpPhrases are normalised phrases that name a one-time code.
var otpPhrases = []string{
	" codice monouso ", " codice usa e getta ", " password monouso ", " codice sms ", " codice via sms ",
	" codice ricevuto via sms ", " codice otp ", " codice di verifica ", " codice temporaneo ",
	" codice di autenticazione ", " codice di accesso monouso ", " one time code ", " one time password ",
	" one time passcode ", " onetime code ", " sms code ", " verification code ", " authentication code ",
	" two factor ", " 2fa ", " otp ", " mfa code ", " totp ",
}

// inputRoles are the roles a code can be typed into.
var inputRoles = map[string]bool{"textbox": true, "spinbutton": true, "searchbox": true, "combobox": true}

// needsAHuman reports the loop rule for a page only a person may pass, and why: a human check
// (RuleHumanCheck, humanCheck) when the page asks to prove a human is there; a one-time-code prompt
// (RuleOneTimeCode) when an input is named for a code, when the page names a one-time code and has an
// input to type it in, or when it has a code split into one-character boxes (codeBoxes). "" when
// neither. It reads the whole snapshot, not only the elements: "Inserisci il codice monouso" is a
// paragraph above a textbox named "Codice".
func needsAHuman(o *observe.Observation) (policy.Rule, string) {
	if why := humanCheck(o); why != "" {
		return RuleHumanCheck, why
	}
	var mentions, inputs []int
	for i, n := range o.Nodes {
		for _, s := range []string{n.Name, n.Text, n.Placeholder} {
			if s == "" {
				continue
			}
			text := " " + policy.NormalizeText(s) + " "
			if containsAny(text, otpPhrases) {
				if inputRoles[n.Role] {
					return RuleOneTimeCode, "the page asks for a one-time code (" + n.Role + " " + excerpt(text) + "): the agent never types one; a person is needed"
				}
				if !controlRoles[n.Role] {
					mentions = append(mentions, i)
				}
			}
		}
		if inputRoles[n.Role] {
			inputs = append(inputs, i)
		}
	}
	if askedNearAnInput(o, mentions, inputs) {
		return RuleOneTimeCode, "the page asks for a one-time code and has an input for it: the agent never types one; a person is needed"
	}
	if why := codeBoxes(o); why != "" {
		return RuleOneTimeCode, why
	}
	return "", ""
}

// controlRoles are the roles whose name labels where a control leads, not what the page asks: a menu
// entry "Auth with OTP" in an admin dashboard's API documentation is no prompt for a code.
var controlRoles = map[string]bool{"link": true, "button": true, "menuitem": true, "tab": true, "option": true, "treeitem": true}

// nearHops is how far (steps up the accessibility tree, each side) a one-time-code mention and an input
// may sit from the container they share: a paragraph above its form's textbox is near; a mention in a
// documentation panel and the search box of the sidebar are not.
const nearHops = 3

// askedNearAnInput reports a one-time-code mention (mentions, node indexes) that shares a container
// with an input (inputs) within nearHops of both; the page itself (-1) is the container of its
// top-level nodes.
func askedNearAnInput(o *observe.Observation, mentions, inputs []int) bool {
	for _, m := range mentions {
		near := map[int]bool{}
		for _, p := range ancestorsNear(o, m) {
			near[p] = true
		}
		for _, in := range inputs {
			for _, p := range ancestorsNear(o, in) {
				if near[p] {
					return true
				}
			}
		}
	}
	return false
}

// ancestorsNear lists node i's containers up to nearHops steps up, -1 (the page) when it is reached.
func ancestorsNear(o *observe.Observation, i int) []int {
	var out []int
	p := o.Nodes[i].Parent
	for h := 1; h <= nearHops; h++ {
		out = append(out, p)
		if p < 0 {
			break
		}
		p = o.Nodes[p].Parent
	}
	return out
}

// hasCaptchaWord reports a word that names a CAPTCHA: captcha, recaptcha, hcaptcha, "CAPTCHA-Code".
func hasCaptchaWord(text string) bool {
	for _, w := range strings.Fields(text) {
		if strings.Contains(w, "captcha") {
			return true
		}
	}
	return false
}

func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// excerpt is the start of a normalised text for a reason line: at most 60 bytes, cut at a word.
func excerpt(text string) string {
	text = strings.TrimSpace(text)
	if len(text) <= 60 {
		return "\"" + text + "\""
	}
	cut := strings.LastIndexByte(text[:60], ' ')
	if cut <= 0 {
		cut = 60
	}
	return "\"" + text[:cut] + " ...\""
}
