package traps

// contentTraps lists this group's traps, one line each.
func contentTraps() []Trap {
	return []Trap{
		labelLessIcon(),
		lyingLabel(),
		getSideEffect(),
		unicodeEvasion(),
		massExport(),
		confirmDialog(),
		cookieWall(),
	}
}
