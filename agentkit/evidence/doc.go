// Package evidence writes what an agent run did, one folder per run:
//
//	actions.jsonl     every proposal, the decision with its rule, the delivery state, the verification
//	violations.jsonl  every guard that fired (denied proposal, blocked request, dismissed dialog, ...)
//	console.jsonl     the page's console messages, the dialogs the session accepted, and the world proxy's
//	                  refusals as the page got them (type proxy_refusal, with a screenshot)
//	trace.zip         Playwright's trace (written by the browser edge)
//
// Every record is a versioned JSON line (field "v"). Every line passes through a Redactor first, so a
// configured secret never reaches a file, in any form (plain; URL-, JSON- or HTML-escaped; base64;
// UTF-16: the Form constants).
//
// What others write into the folder (Playwright's trace.zip, whose action log, DOM snapshots, network
// log and resources hold every value typed and every body sent; the proxy log; downloads; an agent's
// own artifacts) is redacted after the fact: Redactor.Zip rewrites an archive entry by entry, and Seal
// redacts every file of a finished run folder and makes it its owner's only (FileMode, DirMode). Scan
// is the check from outside: every form of a secret in every file and zip entry, named by file, entry
// and form. Pixels (screenshots, screencast frames, videos) cannot be redacted: a value shown in a
// field that displays it stays in the image (a password field shows dots).
//
//	rec, err := evidence.Open(dir, evidence.NewRedactor("s3cret"))
//	if err != nil { return err }
//	defer rec.Close()
//	rec.Violation(evidence.Violation{Rule: policy.RuleDenyWord, Reason: "..."}) // Source: the rule's layer, decide
//	...
//	err = evidence.Seal(dir, rec.Redactor()) // once the browser and the world are closed
package evidence
