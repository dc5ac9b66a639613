package tools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// groupAlive says whether process group pgid has a live member. Zombies do
// not count: where PID 1 does not reap orphans (a bare container), a dead
// background job stays a zombie forever, and counting it would make every
// call wait killGrace for nothing.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	live, ok := liveInGroup(pgid)
	if !ok {
		return true // no /proc: trust kill(2), zombies and all
	}
	return live
}

// liveInGroup scans /proc for a process of group pgid that is not a
// zombie; ok is false when /proc cannot be read.
func liveInGroup(pgid int) (live, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		state, group, ok := procStat(e.Name())
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true, true
		}
	}
	return false, true
}

// procStat reads the state and process group of /proc/<pid>/stat. The
// command name sits in parentheses and may itself contain spaces and
// parentheses, so fields are counted from the last ')'.
func procStat(pid string) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgid, err = strconv.Atoi(string(f[2]))
	return f[0][0], pgid, err == nil
}
