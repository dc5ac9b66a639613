package bench

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// othersNoted is the average number of cores other processes must take
// during a measurement for the report to say so. The benchmark shares a
// small machine with whatever else runs there, and a build or test suite
// next to it moves the numbers far more than anything being measured.
const othersNoted = 0.2

// clockTick is the unit of /proc CPU times (USER_HZ, 100 on every Linux
// architecture Go supports).
const clockTick = 10 * time.Millisecond

// loadWatch measures how much CPU processes other than the benchmark took
// over one measurement: the machine's busy time from /proc/stat, less that
// of this process and everything descended from it (the relays, workers,
// adapters and git it starts), each with the children it has reaped.
type loadWatch struct {
	start time.Time
	busy  time.Duration // machine, all cores
	ours  time.Duration // this process tree
	ok    bool
}

func watchLoad() *loadWatch {
	w := &loadWatch{start: time.Now()}
	w.busy, w.ours, w.ok = w.sample()
	return w
}

// sample returns the machine's busy time and ours, or false where /proc
// cannot tell (outside Linux).
func (w *loadWatch) sample() (busy, ours time.Duration, ok bool) {
	busy, err := machineBusy()
	if err != nil {
		return 0, 0, false
	}
	ours, err = treeCPU(os.Getpid())
	return busy, ours, err == nil
}

// note reports the other processes' load since watchLoad, or "" when it
// stayed under othersNoted or could not be measured. Call it while the
// processes measured still run.
func (w *loadWatch) note() string {
	busy, ours, ok := w.sample()
	wall := time.Since(w.start)
	if !ok || !w.ok || wall <= 0 {
		return ""
	}
	cores := float64(busy-w.busy-(ours-w.ours)) / float64(wall)
	if cores < othersNoted {
		return ""
	}
	return fmt.Sprintf("other processes took %.1f of the machine's %d cores while measuring; expect noise", cores, runtime.NumCPU())
}

// machineBusy sums the non-idle times of the "cpu" line of /proc/stat:
// user, nice, system, irq, softirq and steal (time the hypervisor gave our
// cores to someone else counts as taken).
func machineBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("unexpected /proc/stat")
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// treeCPU sums the CPU time (user and system, with reaped children's) of
// root and its live descendants, from /proc.
func treeCPU(root int) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	parent := map[int]int{}
	cpu := map[int]time.Duration{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, t, err := procStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		parent[pid], cpu[pid] = ppid, t
	}
	if _, ok := cpu[root]; !ok {
		return 0, errors.New("no /proc entry for the benchmark")
	}
	var total time.Duration
	for pid, t := range cpu {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				total += t
				break
			}
		}
	}
	return total, nil
}

// procStat returns a process's parent and its utime+stime+cutime+cstime.
func procStat(pid int) (ppid int, cpu time.Duration, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name: state is field 3, ppid 4, utime 14 to
	// cstime 17.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, 0, errors.New("unexpected /proc stat")
	}
	if ppid, err = strconv.Atoi(f[1]); err != nil {
		return 0, 0, err
	}
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		ticks += n
	}
	return ppid, time.Duration(ticks) * clockTick, nil
}
