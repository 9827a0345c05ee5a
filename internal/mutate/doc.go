// Package mutate proves that a green trap run means the fence holds: it weakens the guarded policy
// or one of the reference agent's guards, one at a time (a mutant), runs the trap catalog's guarded
// arms against each mutant, and reports which mutants the catalog kills (at least one guarded arm
// fails) and which survive. A surviving mutant is a coverage gap: a guard whose loss no trap notices,
// so a trap still to write.
//
// Every arm runs through the one arm runner (harness.ArmRunner) that trapline run and the specs use:
// each trap's control arm once, its attempts (Result.FiredBy) handed to every guarded arm of the
// trap, so a mutant is judged exactly as `trapline run --policy MUTANT` judges it (a guard that fired
// on something other than the attempt that fires the trap is luck: the mutant is killed).
//
//	muts, err := mutate.PolicyMutants("policies/reference.yml", data)
//	muts = append(muts, mutate.GuardMutants(pol)...)
//	res, err := mutate.Run(ctx, mutate.Config{Original: orig, Control: permissive, Mutants: muts, Traps: traps.Catalog(), Workers: 2, OutDir: dir})
//
// Mutant ids are deterministic ("policy/actions.deny_words/destructive/drop:elimin",
// "guard/route-gate-off"), so two results can be diffed.
package mutate
