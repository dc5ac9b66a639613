package agentsetup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Plan is a pending edit of a client's config file. It is computed before
// the user is asked, so the question can say what will change and a file
// that does not parse is refused before anyone is asked anything.
type Plan struct {
	Path     string // the file written: a symlinked config is followed to its target
	Exists   bool   // the file exists now; Apply backs it up first
	Replaces bool   // an entry of that name exists and will be replaced
	old, new []byte
	mode     fs.FileMode
}

// PlanWrite reads the config file at path, which need not exist, and
// computes its content with o's entry set and nothing else changed.
func PlanWrite(path string, o Options) (*Plan, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	p := &Plan{Path: path, mode: 0o600}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Renaming over a symlink would replace the link (a dotfiles
		// manager's, say) with a plain file; edit what it points to.
		if p.Path, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := p.readOld(); err != nil {
		return nil, err
	}
	var err error
	if o.Client == Codex {
		var table string
		if table, err = o.tomlTable(); err == nil {
			p.new, p.Replaces, err = MergeTOML(p.old, o.Name, table)
		}
	} else {
		var entry []byte
		if entry, err = marshalJSON(o.jsonEntry(), ""); err == nil {
			p.new, p.Replaces, err = MergeJSON(p.old, o.Name, entry)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing written", p.Path, err)
	}
	return p, nil
}

// readOld loads the current content and mode; a missing file is empty and
// will be created 0600, as the other servers it later holds may carry
// tokens in their env.
func (p *Plan) readOld() error {
	fi, err := os.Stat(p.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p.Path)
	}
	p.Exists, p.mode = true, fi.Mode().Perm()
	p.old, err = os.ReadFile(p.Path)
	return err
}

// Backup is where Apply saves the previous content.
func (p *Plan) Backup() string { return p.Path + ".bak" }

// Apply saves the previous content to Backup() (if there was a file) and
// replaces the file atomically, keeping its mode. It refuses when the file
// changed since PlanWrite read it, e.g. while the user was answering, or
// the client rewrote it: writing would silently undo that change.
func (p *Plan) Apply() error {
	cur, err := os.ReadFile(p.Path)
	switch {
	case p.Exists && (err != nil || !bytes.Equal(cur, p.old)),
		!p.Exists && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s changed since it was read; nothing written, run again", p.Path)
	}
	if p.Exists {
		if err := writeAtomic(p.Backup(), p.old, p.mode); err != nil {
			return fmt.Errorf("backup: %w; nothing written", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(p.Path), 0o700); err != nil {
		return err
	}
	return writeAtomic(p.Path, p.new, p.mode)
}

// writeAtomic writes data to a temporary file next to path and renames it
// into place, so a crash leaves either the old file or the new one, never
// half of one that the client then fails to parse.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
