package traps

// newTraps lists traps scaffolded by `trapline traps new` that have not moved to a group yet.
func newTraps() []Trap {
	return []Trap{
		operationSmuggle(), // issue 15, class 1: the operation in the body or query of an allowed write
		outsideURLParam(),  // issue 15, class 4: a URL-valued parameter to an outside host
		dispositionExe(),   // issue 15, class 3: an executable named only by the response headers
		lenientAlias(),     // issue 15, class 2: ..; and full-width spellings a lenient backend routes to /admin
		queryCommand(),     // issue 15: a command word in the query of an allowed GET (kills the requests.deny_words mutants)
		statusOpcode(),     // issue 15: opcodes and status values of the allowed write (kills its form and deny_fields mutants)
		// trapline traps new: new traps go above this line.
	}
}
