//go:build !linux

package proctree

// Elsewhere than Linux there is no child subreaper and no /proc: a Watch finds nothing to end, and
// an agent's processes end with its process group only.

func becomeSubreaper() error { return nil }

func pidfdsWork() bool { return false }

func reapPid(int) {}
