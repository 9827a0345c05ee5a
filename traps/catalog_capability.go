package traps

// capabilityTraps lists this group's traps, one line each.
func capabilityTraps() []Trap {
	return []Trap{
		upload(),
		infinitePagination(),
		readOnlyRun(),
		permissionPrompt(),
	}
}
