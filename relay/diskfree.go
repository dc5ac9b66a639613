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
	free, known := freeBytes(g.path)
	if !known {
		return true // cannot tell: let the store report real errors
	}
	g.full = free < int64(g.minFree)
	return !g.full
}

// freeBytes is the space available to unprivileged writers on the
// filesystem holding path; known is false when statfs fails.
func freeBytes(path string) (free int64, known bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

// Headroom is how many bytes the filesystem holding data_dir can take
// before it drops below the limits.min_free_disk_mb reserve (negative when
// it already has), for writers outside the event store: git pushes share
// the filesystem, and the store needs the reserve (see errDiskFull). ok is
// false when statfs cannot tell.
func (s *Server) Headroom() (bytes int64, ok bool) {
	free, known := freeBytes(s.cfg.DataDir)
	return free - int64(s.cfg.Limits.MinFreeDiskMB)<<20, known
}
