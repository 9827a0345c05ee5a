package traps

// deliveryTraps lists the traps on what happens between a decision and its effect, one line each.
func deliveryTraps() []Trap {
	return []Trap{
		doubleSubmit(),
		staleRef(),
	}
}
