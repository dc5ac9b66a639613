package interop

import (
	"strings"
	"sync"
	"testing"
)

// lineWaiter forwards a process's output to the test log and closes ready
// at the first line containing want.
type lineWaiter struct {
	t     testing.TB
	want  string
	ready chan struct{}
	once  sync.Once
	buf   strings.Builder
	mu    sync.Mutex
}

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s[:i]
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
		w.t.Logf("%s", line)
		if strings.Contains(line, w.want) {
			w.once.Do(func() { close(w.ready) })
		}
	}
}
