// Package evidence writes what an agent run did, one folder per run:
//
//	actions.jsonl     every proposal, the decision with its rule, the delivery state, the verification
//	violations.jsonl  every guard that fired (denied proposal, blocked request, dismissed dialog, ...)
//	console.jsonl     the page's console messages
//	trace.zip         Playwright's trace (written by the browser edge)
//
// Every record is a versioned JSON line (field "v"). Every string passes through a Redactor first, so a
// configured secret never reaches a file.
//
//	rec, err := evidence.Open(dir, evidence.NewRedactor("s3cret"))
//	if err != nil { return err }
//	defer rec.Close()
//	rec.Violation(evidence.Violation{Source: evidence.SourceDecide, Rule: "deny_word", Reason: "..."})
package evidence
