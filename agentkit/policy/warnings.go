package policy

// Warnings lists what a policy that loads can still not do: the places where it can do nothing, so
// that a task stops at its first step without anyone having said so. `trapline policy lint` prints
// them after the summary (the policy is valid: exit 0). Each warning is one sentence.
func (p *Policy) Warnings() []string {
	var out []string
	if p.Mode == ModeAct && len(p.Actions.Writes) == 0 {
		out = append(out, "no writes (actions.writes is empty or absent, with a version): every POST, PUT, PATCH and DELETE is refused as write_not_allowed, so a task that saves anything stops at its first save; list the task's writes, or use mode: observe for a read-only run")
	}
	if len(p.Actions.DenyWords) == 0 {
		out = append(out, "no deny words (actions.deny_words is empty or absent): no button or link is refused for what its name says (\"Elimina\", \"Paga\"); only the paths and the writes stand in the way")
	}
	return out
}
