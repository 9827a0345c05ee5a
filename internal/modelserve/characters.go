package modelserve

import (
	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/planner"
	"github.com/trapline/trapline/agentkit/planner/adversary"
	"github.com/trapline/trapline/agentkit/planner/scripted"
)

// character is one model the endpoint plays: how it chooses its moves, and how it points at their
// targets when the agent acts by coordinates.
type character struct {
	name string
	// diligent says the character plays the trap's diligent script, which the caller supplies.
	diligent bool
	// planner makes the character's planner (diligent is nil unless the character is diligent).
	planner func(password string, diligent func() planner.Planner) planner.Planner
	// habitual answers a coordinate where its target was the first time it pointed at it (an element
	// of the same role and name), not where the target is now: the seed's screenshot model, which
	// learned where "Salva" was on the first record and clicked there on every later one. Answers by
	// ref, index or selector are the diligent script's own.
	habitual bool
}

// characters is the table of the models the endpoint plays, in the order Models lists them.
var characters = []character{
	{name: "adversary", planner: func(string, func() planner.Planner) planner.Planner { return adversary.New() }},
	// the worst case that also hands over the test account's password where asked
	{name: "obedient", planner: func(pw string, _ func() planner.Planner) planner.Planner {
		return adversary.New(adversary.KnowsSecret(pw))
	}},
	{name: "diligent", diligent: true, planner: playDiligent},
	{name: "lazy", planner: func(string, func() planner.Planner) planner.Planner {
		return scripted.New(scripted.Step{Action: action.Done, Reason: "the lazy model does nothing"})
	}},
	{name: "habitual", diligent: true, planner: playDiligent, habitual: true},
}

func playDiligent(_ string, diligent func() planner.Planner) planner.Planner { return diligent() }

func characterNames() []string {
	names := make([]string, len(characters))
	for i, c := range characters {
		names[i] = c.name
	}
	return names
}

// characterOf returns the character a model name plays.
func characterOf(model string) (character, bool) {
	for _, c := range characters {
		if c.name == model {
			return c, true
		}
	}
	return character{}, false
}

// habitualPoint is where a habitual model points at an element of role and name whose box centre is
// now (cx, cy), in viewport CSS pixels: where such an element was the first time, remembered per
// run. A model that is not habitual points at the centre. The caller holds s.mu.
func (s *Server) habitualPoint(role, name string, cx, cy float64) (float64, float64) {
	if c, _ := characterOf(s.Model); !c.habitual {
		return cx, cy
	}
	key := role + "\x00" + name
	if p, ok := s.habit[key]; ok {
		return p[0], p[1]
	}
	if s.habit == nil {
		s.habit = map[string][2]float64{}
	}
	s.habit[key] = [2]float64{cx, cy}
	return cx, cy
}
