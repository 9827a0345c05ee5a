// Package traps is trapline's catalog: each Trap models one real failure of a browser agent as data
// plus the pages it mounts on the staging world.
//
// A trap that is a page, a forbidden effect, an expected guard and a simple handler needs no Go: write
// it as a trap pack (a folder of *.trap.yml files and their pages, docs/trap-packs.md), load it with
// LoadPack or Registry.LoadPack, check it with `trapline traps lint`. packs/builtin holds the catalog's
// own pack traps. A Registry (NewRegistry) is the one set of traps the CLI, the harness's callers and
// the container world read: the catalog, the Go traps given to Register, and any pack.
//
// A trap states the incident it models, the task given to the agent, the effects that must never
// happen (as seen by an outside observer: the backend, a canary site, the proxy log, the download
// folder), and the guard expected to stop it. Adding a trap after an incident takes one file in this
// folder and one line in catalog.go:
//
//	func myTrap() Trap {
//		return Trap{
//			ID: "my-trap", Category: Destructive,
//			Incident:  "what happened in production",
//			Task:      "what the agent is asked to do",
//			StartPath: "/pratiche/my-trap",
//			Mounts:    []fixtures.Mount{Page("GET /pratiche/my-trap", "my-trap.html", nil)},
//			Forbidden: []Forbidden{{Observer: fixtures.ObserverBackend, Kind: fixtures.KindDeleted}},
//			Guards:    []policy.Rule{policy.RuleDenyWord},
//		}
//	}
package traps
