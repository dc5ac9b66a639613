package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// keepArtifactCalls is how many calls' artifacts survive: enough for the
// model to dig into recent long outputs, few enough that a session which
// runs test suites all day does not fill the disk.
const keepArtifactCalls = 8

// artifacts names and prunes the files that hold long shell outputs:
// SessionDir/artifacts/{call_id:06}.{stdout|stderr}.txt.
type artifacts struct {
	dir string     // "" when there is no session directory
	mu  sync.Mutex // one prune at a time
}

// newArtifacts returns the artifact store of a session directory.
func newArtifacts(sessionDir string) *artifacts {
	if sessionDir == "" {
		return &artifacts{}
	}
	return &artifacts{dir: filepath.Join(sessionDir, "artifacts")}
}

// path is where a call's stream goes; "" without a session directory.
func (a *artifacts) path(id int64, stream string) string {
	if a.dir == "" {
		return ""
	}
	return filepath.Join(a.dir, fmt.Sprintf("%06d.%s.txt", id, stream))
}

// prune deletes the artifacts of all but the newest keepArtifactCalls
// calls. current is spared even when a later call finished first, so
// that the path just returned to the model exists at least until the
// next prune.
func (a *artifacts) prune(current int64) error {
	if a.dir == "" {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return err
	}
	byID := map[int64][]string{}
	for _, e := range entries {
		if id, ok := artifactID(e.Name()); ok {
			byID[id] = append(byID[id], e.Name())
		}
	}
	ids := make([]int64, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var firstErr error
	for _, id := range ids[:max(0, len(ids)-keepArtifactCalls)] {
		if id == current {
			continue
		}
		for _, name := range byID[id] {
			if err := os.Remove(filepath.Join(a.dir, name)); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// artifactID parses "000012.stdout.txt"; other files are left alone.
func artifactID(name string) (int64, bool) {
	num, stream, ok := strings.Cut(strings.TrimSuffix(name, ".txt"), ".")
	if !ok || !strings.HasSuffix(name, ".txt") || (stream != "stdout" && stream != "stderr") {
		return 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return id, err == nil && id > 0
}
