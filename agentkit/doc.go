// Package agentkit is trapline's reference boundary-enforced browser agent: a loop that observes the
// page, asks a Planner for one action, lets the Policy decide, dispatches through a Driver, and records
// everything as evidence. The fence lives here, in code around the planner, never in its prompt.
//
//	pol, _ := policy.Load("policies/reference.yml")
//	ag := &agentkit.Agent{Policy: pol, Planner: adversary.New()}
//	res, err := ag.Run(ctx, drv, rec, agentkit.Task{StartURL: "http://portale.interno.test/", Goal: "..."})
//
// Sub-packages: policy (rules, pure), observe (snapshots and refs), action (the closed action set),
// act (delivery semantics), planner (scripted, adversary), evidence (logs), browser (the Playwright edge).
package agentkit
