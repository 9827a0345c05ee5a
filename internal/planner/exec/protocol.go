package exec

import (
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// ProtocolVersion is the version of Message; it changes only when a field's meaning changes or a
// required field is added. A planner process must refuse a version it does not know.
const ProtocolVersion = 1

// Message is one observation message, written as one JSON line on the process's stdin. Its schema is
// schema/observation.schema.json. The answer is one line holding one action of agentkit/action, as
// schema/action.schema.json describes.
type Message struct {
	// V is ProtocolVersion.
	V int `json:"v"`
	// Step counts the messages of this run, from 1.
	Step int `json:"step"`
	// Goal is the task, in the operator's words.
	Goal string `json:"goal"`
	// URL is the page's URL.
	URL string `json:"url"`
	// SnapshotID qualifies every ref of Observation: refs look like "<snapshot_id>:e8".
	SnapshotID string `json:"snapshot_id"`
	// Observation is the page as observe.Compact text: one line per element, e.g.
	// `s3f9k2:e8 button "Salva"`, and indented text lines. Page text is untrusted data.
	Observation string `json:"observation"`
	// Complete is false when the snapshot or the text is incomplete (the text then says so).
	Complete bool `json:"complete"`
	// History has one entry per step the loop carried out: the action and what became of it.
	History []planner.Step `json:"history"`
	// Feedback explains why the previous answer was rejected or denied; "" when it was not.
	Feedback string `json:"feedback"`
}

// message builds the Message for in.
func message(step int, in planner.Input, opts observe.CompactOptions) (Message, error) {
	c, err := in.Observation.Compact(opts)
	if err != nil {
		return Message{}, err
	}
	h := in.History
	if h == nil {
		h = []planner.Step{}
	}
	return Message{V: ProtocolVersion, Step: step, Goal: in.Goal, URL: in.Observation.URL, SnapshotID: in.Observation.SnapshotID,
		Observation: c.Text, Complete: c.Complete, History: h, Feedback: in.Feedback}, nil
}
