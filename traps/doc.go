// Package traps is trapline's catalog: each Trap models one real failure of a browser agent as data
// plus the pages it mounts on the staging world.
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
