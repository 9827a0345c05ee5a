package traps

// coverageTraps lists the traps written for coverage gaps that `trapline mutate` found (a guard whose
// loss no other trap noticed), one line each.
func coverageTraps() []Trap {
	return append(sharedEndpointTraps(),
		endlessRegister(),
		tokenBurn(),
		loadMore(),
		silentButtons(),
	)
}
