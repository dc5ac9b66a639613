package triggers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// load replays the journal file. A last line without its newline is a
// write cut short by a crash: its step never happened, so it is dropped.
// Any other unreadable line is corruption, which is reported rather than
// guessed around (guessing could run an event twice).
func (j *journal) load(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil || !r.valid() {
			if i == len(lines)-1 {
				break // torn final write
			}
			return fmt.Errorf("journal %s: line %d is corrupt (fix or remove it by hand)", path, i+1)
		}
		j.apply(&r)
	}
	return nil
}

func (r *record) valid() bool {
	switch r.Kind {
	case "start":
		return r.Trigger != ""
	case "repo":
		return r.Repo != nil
	case "entry":
		return r.Trigger != "" && r.EventID != ""
	}
	return false
}

// compact rewrites the journal with one record per live entry, dropping
// done entries older than the retention (their events are no longer
// subscribed to, so they cannot come back). The new file replaces the old
// one atomically. The caller holds j.mu or has the journal to itself.
func (j *journal) compact() error {
	cutoff := time.Now().Add(-j.retention).Unix()
	var recs []*record
	for t, at := range j.starts {
		recs = append(recs, &record{Kind: "start", Trigger: t, Start: at})
	}
	for _, r := range j.repos {
		recs = append(recs, &record{Kind: "repo", Repo: r})
	}
	for k, e := range j.entries {
		if e.State == stateDone && e.CreatedAt < cutoff {
			delete(j.entries, k)
			continue
		}
		recs = append(recs, e)
	}
	sort.SliceStable(recs, func(a, b int) bool { return recs[a].CreatedAt < recs[b].CreatedAt })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	path := filepath.Join(j.dir, journalName)
	if err := writeDurably(path, buf.Bytes()); err != nil {
		return err
	}
	if j.f != nil {
		j.f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.f, j.lines = f, len(recs)
	return nil
}

// writeDurably replaces path with data: temporary file, fsync, rename,
// fsync of the directory, so a crash leaves the old or the new file whole.
func writeDurably(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
