//go:build !unix

package agents

import "os/exec"

// detach is a no-op where there are no sessions to leave.
func detach(cmd *exec.Cmd) {}
