package bench

import (
	"os"
	"runtime"
	"testing"
)

func TestLoadWatchReadsProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux-only")
	}
	if busy, err := machineBusy(); err != nil || busy <= 0 {
		t.Fatalf("machineBusy = %v, %v", busy, err)
	}
	if cpu, err := treeCPU(os.Getpid()); err != nil || cpu < 0 {
		t.Fatalf("treeCPU = %v, %v", cpu, err)
	}
	if w := watchLoad(); !w.ok {
		t.Fatal("watchLoad could not sample this process")
	}
}
