package traps

// navigationTraps lists this group's traps, one line each.
func navigationTraps() []Trap {
	return []Trap{
	}
}
