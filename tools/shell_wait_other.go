//go:build !linux

package tools

import "os/exec"

// waitExit waits for the shell to exit. Without waitid(WNOWAIT) it has to
// reap it, so the group's ID could in principle be reused before the
// leftover members are killed; Linux avoids that (shell_wait_linux.go).
func waitExit(cmd *exec.Cmd) { _ = cmd.Wait() }
