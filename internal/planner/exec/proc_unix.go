//go:build unix

package exec

import (
	osexec "os/exec"
	"syscall"
)

// ownGroup puts the process in a process group of its own, so that killing it also kills any child
// it started (which could otherwise keep its stdout open).
func ownGroup(cmd *osexec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group of cmd.
func killGroup(cmd *osexec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return cmd.Process.Kill()
	}
	return nil
}
