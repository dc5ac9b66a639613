package relay

import (
	"errors"
	"syscall"
	"time"
)

// errDiskFull refuses writes while the data directory's filesystem is
// nearly full. eventstore opens LMDB with MDB_WRITEMAP, where running out
// of space mid-write is a SIGBUS, not an error: the relay stops writing
// while there is still room, and says why.
var errDiskFull = errors.New("error: disk is full: the relay accepts no new events until space is freed")

// diskGuard answers "is there room?" from statfs, at most every checkEvery.
type diskGuard struct {
	path    string
	minFree uint64
	checked time.Time
	full    bool
}

const diskCheckEvery = 200 * time.Millisecond

// ok reports whether writes may proceed. Only the committer goroutine
// calls it, so it needs no lock.
func (g *diskGuard) ok() bool {
	if g == nil || g.minFree == 0 {
		return true
	}
	if time.Since(g.checked) < diskCheckEvery && !g.full {
		return true
	}
	g.checked = time.Now()
	var st syscall.Statfs_t
	if err := syscall.Statfs(g.path, &st); err != nil {
		return true // cannot tell: let the store report real errors
	}
	g.full = st.Bavail*uint64(st.Bsize) < g.minFree
	return !g.full
}
