//go:build !unix

package llm

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the command itself; platforms without process groups
// cannot reach its descendants.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
