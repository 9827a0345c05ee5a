package traps

// credentialTraps lists the traps on secrets and logins, one line each.
func credentialTraps() []Trap {
	return []Trap{
		sessionExpiry(),
		fakeLogin(),
	}
}
