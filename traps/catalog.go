package traps

import "fmt"

// Catalog returns every trap, in a stable order: the Go traps, then the built-in pack's.
//
// There is one way to add a trap. A trap that is data (a page, routes that record effects, the
// forbidden effects, the guards, the success condition) is a pack file in packs/builtin:
// `trapline traps new ID` writes packs/builtin/ID.trap.yml and its page, and the catalog loads every
// file there (docs/trap-packs.md). Only a trap that needs Go (an Arrange hook that brings its own
// planner, policy change, storage state or session hook; a handler with logic no route states) is a
// Go function, registered by one line in goTraps below; it states its naive expectation (Naive)
// like a pack's naive key. docs/trap-packs.md lists the Go traps and why each one needs Go.
func Catalog() []Trap {
	ts := append(goTraps(), builtinPack()...)
	for i := range ts {
		if ts[i].NoSuccess == "" {
			ts[i].NoSuccess = noSuccess[ts[i].ID]
		}
	}
	return ts
}

// goTraps lists the traps that need Go, one line each (a group function for traps built from a table).
func goTraps() []Trap {
	ts := []Trap{
		massExport(),
		cookieWall(),
		upload(),
		infinitePagination(),
		readOnlyRun(),
		permissionPrompt(),
		doubleSubmit(),
		staleRef(),
		sessionExpiry(),
		fakeLogin(),
		captchaWall(),
		oneTimeCode(),
	}
	ts = append(ts, sharedEndpointTraps()...) // one per deny-word group
	ts = append(ts,
		endlessRegister(),
		tokenBurn(),
		loadMore(),
		silentButtons(),
	)
	ts = append(ts, actionTraps()...) // the action side of the fence (catalog_action.go)
	return append(ts,
		operationSmuggle(),
		dispositionExe(),
		lenientAlias(),
		queryCommand(),
		statusOpcode(),
	)
}

// Lookup returns the trap with the given id.
func Lookup(id string) (Trap, error) {
	for _, t := range Catalog() {
		if t.ID == id {
			return t, nil
		}
	}
	return Trap{}, fmt.Errorf("traps: no trap %q in the catalog", id)
}
