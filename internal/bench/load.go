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

// loadWatch measures how much CPU processes other than the benchmark and
// the relay under test took over one measurement: the machine's busy time
// from /proc/stat, less this process's and the relay's own.
type loadWatch struct {
	relay int // pid
	start time.Time
	busy  time.Duration // machine, all cores
	ours  time.Duration // this process and the relay
	ok    bool
}

func watchLoad(relayPid int) *loadWatch {
	w := &loadWatch{relay: relayPid, start: time.Now()}
	w.busy, w.ours, w.ok = w.sample()
	return w
}

// sample returns the machine's busy time and ours, or false where /proc
// cannot tell (outside Linux).
func (w *loadWatch) sample() (busy, ours time.Duration, ok bool) {
	busy, err := machineBusy()
	self, err2 := procCPU("self")
	relay, err3 := procCPU(strconv.Itoa(w.relay))
	if errors.Join(err, err2, err3) != nil {
		return 0, 0, false
	}
	return busy, self + relay, true
}

// note reports the other processes' load since watchLoad, or "" when it
// stayed under othersNoted or could not be measured. Call it while the
// relay still runs.
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

// procCPU returns the user plus system time of /proc/<pid>, pid "self"
// included.
func procCPU(pid string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// count fields after the last ")" (state is field 3, utime 14, stime 15).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, errors.New("unexpected /proc/" + pid + "/stat")
	}
	utime, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * clockTick, err
}
