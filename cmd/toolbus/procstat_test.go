package main_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procRSS is a process's resident set size (VmRSS), or "?".
func procRSS(pid int) string { return procStatus(pid, "VmRSS:") }

// procHWM is a process's peak resident set size (VmHWM), or "?".
func procHWM(pid int) string { return procStatus(pid, "VmHWM:") }

func procStatus(pid int, field string) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			if kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB")); err == nil {
				return fmt.Sprintf("%.1f MB", float64(kb)/1024)
			}
		}
	}
	return "?"
}

// cpuSnapshot is the CPU time used so far by the relay, the worker and
// the test process, and by the whole machine: the machine is shared, and
// what other processes took explains a soak that falls behind.
type cpuSnapshot struct {
	procs   [3]time.Duration
	machine time.Duration
}

func readCPU(pids [3]int) cpuSnapshot {
	var s cpuSnapshot
	for i, pid := range pids {
		s.procs[i] = procCPU(pid)
	}
	s.machine = machineCPU()
	return s
}

func (s cpuSnapshot) sub(o cpuSnapshot) cpuSnapshot {
	for i := range s.procs {
		s.procs[i] -= o.procs[i]
	}
	s.machine -= o.machine
	return s
}

func (s cpuSnapshot) ours() time.Duration { return s.procs[0] + s.procs[1] + s.procs[2] }

// cores is the average number of cores the soak's processes, and all
// others, kept busy over d.
func (s cpuSnapshot) cores(d time.Duration) (ours, others float64) {
	ours = s.ours().Seconds() / d.Seconds()
	return ours, max(s.machine-s.ours(), 0).Seconds() / d.Seconds()
}

// procCPU is the user+system CPU time a process has used so far, or 0.
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// After "pid (comm) ", utime and stime are fields 12 and 13, in
	// USER_HZ ticks (100 a second).
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// machineCPU is the busy (non-idle, non-iowait) CPU time of all cores so
// far, from /proc/stat, or 0.
func machineCPU() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		busy += n
	}
	return time.Duration(busy) * 10 * time.Millisecond
}

// loadAvg is the 1, 5 and 15 minute load averages, or "?".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
