package tools

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// keptModeBits are the mode bits an edit carries over to the new file.
const keptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// editTarget finds the file an edit replaces. A missing file is refused
// (str_replace never creates one). A symlink is followed to its target,
// so the edit changes the file the link points to instead of replacing
// the link with a copy; with Confine the target must be in the workdir.
func editTarget(e *Env, ref fileRef) (fileRef, fs.FileInfo, *mcp.CallToolResult) {
	fi, err := ref.fsys.Stat(ref.name)
	if errors.Is(err, fs.ErrNotExist) {
		return ref, nil, toolError(codeNotFound, "str_replace edits existing files; it cannot create "+ref.shown+
			" (no such file). Create it another way, then edit it.")
	}
	if err != nil {
		return ref, nil, fileError(err, ref.shown)
	}
	if res := checkRegular(fi, ref.shown, maxTextFileBytes); res != nil {
		return ref, nil, res
	}
	li, err := ref.fsys.Lstat(ref.name)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return ref, fi, nil
	}
	// The Root already refused a link leaving the workdir; resolving the
	// target again checks the resolved path too.
	real, err := filepath.EvalSymlinks(ref.abs)
	if err != nil {
		return ref, nil, fileError(err, ref.shown)
	}
	target, res := resolveFile(e, real)
	target.shown = ref.shown
	return target, fi, res
}

// readText reads a whole text file for editing and checks it is UTF-8.
func readText(ref fileRef) (string, *mcp.CallToolResult) {
	f, res := openRegular(ref, maxTextFileBytes)
	if res != nil {
		return "", res
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTextFileBytes+1))
	if err != nil {
		return "", fileError(err, ref.shown)
	}
	if len(data) > maxTextFileBytes {
		return "", invalidf("%s grew over the %s limit while being read", ref.shown, sizeText(maxTextFileBytes))
	}
	var u utf8Stream
	if err = checkText(&u, data); err == nil {
		err = u.close()
	}
	if err != nil {
		return "", textError(err, ref.shown)
	}
	return string(data), nil
}

// writeAtomic replaces ref's file with data: a temporary file in the same
// directory (so the rename cannot cross file systems, and through the same
// fileSys so a confined edit stays inside) is written, flushed to disk,
// given the original mode and owner, and renamed over the original. A
// reader sees the old file or the new one, never half of each.
func writeAtomic(ref fileRef, orig fs.FileInfo, data string) (err error) {
	base := filepath.Base(ref.name)
	base = base[:min(len(base), 200)] // room for the suffix within NAME_MAX
	tmp := filepath.Join(filepath.Dir(ref.name), "."+base+".toolbus-"+rand.Text()[:10]+".tmp")
	f, err := ref.fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			ref.fsys.Remove(tmp)
		}
	}()
	if _, err = f.WriteString(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	keepOwner(ref.fsys, tmp, orig) // before Chmod: chown clears setuid bits
	if err = ref.fsys.Chmod(tmp, orig.Mode()&keptModeBits); err != nil {
		return err
	}
	if err = ref.fsys.Rename(tmp, ref.name); err != nil {
		return err
	}
	syncDir(ref)
	return nil
}

// syncDir flushes the directory entry of a rename; best effort, since
// some file systems refuse to sync a directory.
func syncDir(ref fileRef) {
	if d, err := ref.fsys.OpenFile(filepath.Dir(ref.name), os.O_RDONLY, 0); err == nil {
		d.Sync()
		d.Close()
	}
}
