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

// ErrNoRoom refuses a write outside the event store (a git push) that
// would leave the data directory's filesystem below min_free_disk_mb.
var ErrNoRoom = errors.New("disk is full: the relay takes no pushes until space is freed")

// Room reports whether the filesystem holding data_dir can take need more
// bytes and keep the limits.min_free_disk_mb reserve. The event store
// needs that reserve (see errDiskFull), and git pushes share its
// filesystem, so a push that would eat into it is refused before it
// starts rather than risk the store. Nil when there is room, when no
// reserve is configured, or when statfs cannot tell.
func (s *Server) Room(need int64) error {
	minFree := uint64(s.cfg.Limits.MinFreeDiskMB) << 20
	if minFree == 0 {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.cfg.DataDir, &st); err != nil {
		return nil
	}
	if st.Bavail*uint64(st.Bsize) < minFree+uint64(max(need, 0)) {
		return ErrNoRoom
	}
	return nil
}
