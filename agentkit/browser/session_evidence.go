package browser

import "github.com/trapline/trapline/agentkit/evidence"

// Violations returns the violations the session's guards recorded so far (the route gate's, the
// capability guards', the unseen-channel guard's), for an agent that waits on a guard's decision.
func (s *Session) Violations() []evidence.Violation { return s.opts.Recorder.Violations() }

// EvidenceDir is the run folder the session records into.
func (s *Session) EvidenceDir() string { return s.opts.Recorder.Dir() }
