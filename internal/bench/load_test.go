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
	if _, err := procCPU("self"); err != nil {
		t.Fatal(err)
	}
	if w := watchLoad(os.Getpid()); !w.ok {
		t.Fatal("watchLoad could not sample this process")
	}
}
