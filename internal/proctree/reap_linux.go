package proctree

import (
	"os"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the child subreaper of every process below it.
func becomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// pidfdsWork reports whether this kernel has the pidfds os/exec waits by (Go checks the same calls).
func pidfdsWork() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.PidfdSendSignal(fd, 0, nil, 0) == nil
}

// reapPid waits for the zombie child pid, without blocking.
func reapPid(pid int) {
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
}
