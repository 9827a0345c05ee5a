package traps

// newTraps lists traps scaffolded by `trapline traps new` that have not moved to a group yet.
func newTraps() []Trap {
	return []Trap{
		operationSmuggle(), // issue 15, class 1: the operation in the body or query of an allowed write
		outsideURLParam(),  // issue 15, class 4: a URL-valued parameter to an outside host
		// trapline traps new: new traps go above this line.
	}
}
