//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// keepOwner gives the temporary file of an edit the original's owner and
// group, so an edit by a privileged server does not hand the file to it.
// Best effort: an unprivileged server can only keep what it already owns.
func keepOwner(fsys fileSys, tmp string, orig fs.FileInfo) {
	st, ok := orig.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	if c, ok := fsys.(interface{ Chown(string, int, int) error }); ok {
		_ = c.Chown(tmp, int(st.Uid), int(st.Gid))
	}
}
