package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Machine describes where a run was measured: the numbers are only
// comparable between runs on the same kind of machine.
type Machine struct {
	CPU        string
	Cores      int
	Go         string
	Platform   string
	Khatru     string
	Eventstore string
}

// DetectMachine reads the CPU model from /proc/cpuinfo and the versions of
// Go and of the relay libraries built into this binary.
func DetectMachine() Machine {
	m := Machine{CPU: cpuModel(), Cores: runtime.NumCPU(), Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Khatru: "?", Eventstore: "?"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/fiatjaf/khatru":
				m.Khatru = d.Version
			case "github.com/fiatjaf/eventstore":
				m.Eventstore = d.Version
			}
		}
	}
	return m
}

// String is the one-line summary printed above the table.
func (m Machine) String() string {
	return fmt.Sprintf("%s, %d cores, %s %s", m.CPU, m.Cores, m.Go, m.Platform)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return "unknown CPU"
}
