//go:build !unix

package exec

import osexec "os/exec"

func ownGroup(*osexec.Cmd) {}

func killGroup(cmd *osexec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
