package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTextFileBytes caps the files read_file and str_replace accept: bigger
// files are not source code a model should page through or rewrite.
const maxTextFileBytes = 10 << 20

// confinedNote is appended to file tool descriptions only when the server
// enforces it, so the model is never promised a boundary that is not there.
const confinedNote = "Paths are confined to the working directory. "

// fileSys is the part of the file system the file tools touch. A confined
// server uses the workdir's *os.Root, which keeps every access (symlinks
// included) inside; an unconfined one uses the os package.
type fileSys interface {
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	Chmod(name string, mode fs.FileMode) error
	Rename(oldname, newname string) error
	Remove(name string) error
}

// osFS is fileSys without confinement: names are absolute paths.
type osFS struct{}

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (osFS) Stat(name string) (fs.FileInfo, error)     { return os.Stat(name) }
func (osFS) Lstat(name string) (fs.FileInfo, error)    { return os.Lstat(name) }
func (osFS) Chmod(name string, mode fs.FileMode) error { return os.Chmod(name, mode) }
func (osFS) Rename(oldname, newname string) error      { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error                  { return os.Remove(name) }
func (osFS) Chown(name string, uid, gid int) error     { return os.Chown(name, uid, gid) }

// fileRef is a tool's path argument, resolved.
type fileRef struct {
	fsys  fileSys
	name  string // what fsys is called with: Root-relative or absolute
	abs   string // absolute path, for symlink resolution
	shown string // the path as the caller wrote it, for messages
}

// resolveFile resolves a path argument: through e.Root when confined, so a
// later access cannot leave the workdir even through a symlink.
func resolveFile(e *Env, p string) (fileRef, *mcp.CallToolResult) {
	rel, abs, err := e.Resolve(p)
	if err != nil {
		if errors.Is(err, ErrOutsideWorkdir) {
			return fileRef{}, toolError(codeUnauthorized, err.Error())
		}
		return fileRef{}, invalidf("%v", err)
	}
	if e.Confine {
		return fileRef{fsys: e.Root, name: rel, abs: abs, shown: p}, nil
	}
	return fileRef{fsys: osFS{}, name: abs, abs: abs, shown: p}, nil
}

// checkRegular refuses what a text or image tool must not open:
// directories, devices and FIFOs (reading /dev/zero or a pipe would never
// end), and files over limit.
func checkRegular(fi fs.FileInfo, shown string, limit int64) *mcp.CallToolResult {
	switch {
	case fi.IsDir():
		return invalidf("%s is a directory, not a file", shown)
	case !fi.Mode().IsRegular():
		return invalidf("%s is not a regular file (%s)", shown, fi.Mode().Type())
	case fi.Size() > limit:
		return invalidf("%s is %d bytes (%s), over the %d-byte (%s) limit",
			shown, fi.Size(), sizeText(fi.Size()), limit, sizeText(limit))
	}
	return nil
}

// openRegular opens a regular file of at most limit bytes for reading.
// The path is checked before opening, so that a FIFO is never opened, and
// the open file again, since the path may have been swapped in between
// (O_NONBLOCK keeps the open itself from hanging on a FIFO put there).
func openRegular(ref fileRef, limit int64) (*os.File, *mcp.CallToolResult) {
	fi, err := ref.fsys.Stat(ref.name)
	if err != nil {
		return nil, fileError(err, ref.shown)
	}
	if res := checkRegular(fi, ref.shown, limit); res != nil {
		return nil, res
	}
	f, err := ref.fsys.OpenFile(ref.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileError(err, ref.shown)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, fileError(err, ref.shown)
	}
	if res := checkRegular(fi, ref.shown, limit); res != nil {
		f.Close()
		return nil, res
	}
	return f, nil
}

// sizeText renders a byte count for people: "10 MiB", "1.5 KiB", "12 bytes".
func sizeText(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 || v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
