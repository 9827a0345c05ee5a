// Package traps is trapline's catalog: each Trap models one real failure of a browser agent as data
// plus the pages it mounts on the staging world.
//
// There is one way to add a trap: a trap pack file. A trap that is a page, routes that record effects,
// a forbidden effect, an expected guard and a success condition needs no Go: `trapline traps new ID`
// (from the repository root) writes packs/builtin/ID.trap.yml and its page, and Catalog loads every
// file there with the strict loader users' packs go through (LoadPack, `trapline traps lint`,
// docs/trap-packs.md). A Registry (NewRegistry) is the one set of traps the CLI, the harness's callers
// and the container world read: the catalog, the Go traps given to Register, and any pack.
//
// A trap states the incident it models, the task given to the agent, the effects that must never
// happen (as seen by an outside observer: the backend, a canary site, the proxy log, the download
// folder), the guard expected to stop it, and what the naive example external agent must meet on it
// (Naive; a pack's naive key). Only a trap that needs Go (an Arrange hook, a handler with logic) is a
// function in this folder, registered by one line in goTraps (catalog.go); docs/trap-packs.md lists
// them and why each needs Go.
package traps
