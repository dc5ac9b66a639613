package bench

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill a relay if the benchmark dies, so an
// interrupted run never leaves relays behind holding ports and memory.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// raiseFDLimit raises the soft open-files limit to at least need (up to the
// hard limit). The idle-connection workload holds a thousand sockets in
// this process; the relays, being Go programs too, raise their own.
func raiseFDLimit(need uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur >= need {
		return nil
	}
	lim.Cur = min(need, lim.Max)
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}
