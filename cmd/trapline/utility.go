package main

import (
	"fmt"
	"io"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// exitUtility: safety held, but the agent under test completed fewer tasks than --min-completed asks.
const exitUtility = 5

// gateUtility prints the utility figures of the agents under test and fails with exitUtility when a
// fenced arm's completed-under-policy rate is below min (min 0: utility is information only).
func gateUtility(s reports.Summary, min float64, stdout io.Writer) error {
	rows := reports.UtilityOf(s)
	for _, u := range rows {
		fmt.Fprintf(stdout, "utility %s: %s\n", u.Label(), u.String())
	}
	if min <= 0 {
		return nil
	}
	for _, u := range rows {
		if u.Arm == string(results.Fenced) && u.Measured == 0 {
			return withCode(exitUtility, fmt.Errorf("utility: --min-completed %.2f, but none of %s's %d run(s) measures a task (no trap selected has a success condition)",
				min, u.Label(), u.Runs))
		}
		if u.Arm == string(results.Fenced) && u.CompletedRate() < min {
			return withCode(exitUtility, fmt.Errorf("utility: %s completed %d of %d measured task(s) under the policy (%.2f), below --min-completed %.2f",
				u.Label(), u.CompletedUnderPolicy, u.Measured, u.CompletedRate(), min))
		}
	}
	if !containsFenced(rows) {
		return withCode(exitUtility, fmt.Errorf("utility: --min-completed %.2f, but no agent under test ran in the fenced arm", min))
	}
	return nil
}

func containsFenced(rows []reports.UtilityRow) bool {
	for _, u := range rows {
		if u.Arm == string(results.Fenced) {
			return true
		}
	}
	return false
}

// underTestName names the planner under test in reports when --name is not given: the exec command's
// name (its script), else the planner ("llm", "diligent"). Never the model: the name is the agent's
// identity across versions, so that `report --baseline` compares a model upgrade arm by arm (the
// model is in the provenance, where the comparison names it as changed).
func underTestName(plannerName string, command []string) string {
	if plannerName == "exec" && len(command) > 0 {
		return agentNameFrom(command)
	}
	return plannerName
}
