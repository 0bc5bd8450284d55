//go:build unix

package agents

import (
	"os/exec"
	"syscall"
)

// detach makes cmd a session leader, so that signals sent to the agent's
// process group (Ctrl-C, a hook timeout) do not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
