package traps

// contentTraps lists this group's traps, one line each.
func contentTraps() []Trap {
	return []Trap{
		massExport(),
		cookieWall(),
	}
}
