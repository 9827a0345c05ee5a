// Package observe turns Playwright's AI-mode aria snapshot of a page into
// an Observation: a tree of nodes with roles, accessible names, texts,
// states and link URLs, whose refs are qualified by a snapshot id.
//
// Playwright resolves a ref such as "e8" against the last snapshot taken
// in the frame, and a stale ref does not fail: it waits. An agent that
// keeps refs across page changes can therefore act on the wrong element.
// observe prevents the mix-up by handing out qualified refs ("s3f9k2:e8")
// and refusing, with typed errors, refs without a snapshot id
// (ErrBareRef), refs of another snapshot (ErrStaleRef) and refs the
// snapshot lacks (ErrUnknownRef).
//
// The package is pure: it parses text and does no I/O. Taking the
// snapshot is the browser edge's job:
//
//	raw, _ := page.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi})
//	obs, err := observe.Parse(observe.NewSnapshotID(), page.URL(), raw)
//	if err != nil {
//		return err // not a snapshot at all
//	}
//	if !obs.Complete {
//		log.Printf("snapshot read with problems: %v", obs.Warnings)
//	}
//	view, _ := obs.Compact(observe.CompactOptions{MaxElements: 200, IncludeText: true})
//	// give view.Text to the planner; it answers with a qualified ref
//	n, err := obs.Lookup(answer) // ErrStaleRef, ErrUnknownRef, ErrBareRef...
//	if err != nil {
//		return err
//	}
//	page.Locator("aria-ref=" + n.RawRef).Click()
//
// Nothing is cut silently: Parse marks an observation incomplete and
// records a warning for every line it cannot read, and Compact says how
// many elements a cap left out. Names and texts are kept verbatim
// (zero-width characters, fullwidth letters and bidi controls included);
// normalising them is the caller's job. The one exception: icon-font glyphs
// (the Private Use Area) are no part of a name a person can type, so Name
// drops them (TypableName: "aperta \ueb99" is "aperta") and RawName keeps
// the name as printed, for the evidence.
//
// What is on top: a snapshot taken with boxes (`[box=x,y,width,height]`) gives each node its Box; the
// browser edge hit-tests each element's centre and fills Node.CoveredBy for an element something else
// lies on (an open panel, menu or dialog), which Compact writes as [covered] and the loop refuses as a
// target. A visually hidden native toggle (a 0×0 checkbox under a styled label) takes the ref of the
// label or wrapper around it (Node.ViaLabel), so it can be acted on as a person does, by its label.
//
// Hash identifies the page content independently of refs, so an agent can
// tell that an action changed nothing.
package observe
