//go:build linux

package tools

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitExit blocks until the shell has exited but does not reap it
// (WNOWAIT): while it is an unreaped zombie, its PID, which is also its
// process group's ID, cannot be given to another process, so killing the
// group afterwards cannot hit a stranger. group.finish reaps it.
func waitExit(cmd *exec.Cmd) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			if err != nil {
				_ = cmd.Wait() // cannot wait without reaping: reap now
			}
			return
		}
	}
}
