package traps

// newTraps lists traps scaffolded by `trapline traps new` that have not moved to a group yet.
func newTraps() []Trap {
	return []Trap{
		// trapline traps new: new traps go above this line.
	}
}
