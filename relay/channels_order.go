package relay

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/relay/groups"
)

// orderLog records, one id per line in data_dir/groups.order, the order in
// which channel state changes were applied, so that a restart replays them
// exactly as they happened (groups.Options.RecordsOrder): people may then
// add members in any order within a second without being asked to re-sign.
// It is synced with each change, like the event it names.
type orderLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// openOrderLog reads the recorded ids (nil when there is no record yet) and
// opens the file for appending.
func openOrderLog(path string) (*orderLog, []string, error) {
	ids, err := readOrder(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open channel order log: %w", err)
	}
	return &orderLog{path: path, f: f}, ids, nil
}

func readOrder(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read channel order log: %w", err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); len(id) == 64 {
			ids = append(ids, id) // a torn last line (crash mid-write) is skipped
		}
	}
	return ids, sc.Err()
}

// record appends ids and syncs.
func (o *orderLog) record(ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.f.WriteString(strings.Join(ids, "\n") + "\n"); err != nil {
		return err
	}
	return o.f.Sync()
}

func (o *orderLog) close() error { return o.f.Close() }

// replayOrder arranges the stored channel log for RebuildOrdered: recorded
// ids in their order, then anything the record lacks (it was lost, or
// written before it existed) in the order Rebuild would sort it, so that a
// channel created and changed in the same second replays as it happened.
func replayOrder(log []*nostr.Event, recorded []string, relayPK string) []*nostr.Event {
	byID := make(map[string]*nostr.Event, len(log))
	for _, ev := range log {
		byID[ev.ID] = ev
	}
	out := make([]*nostr.Event, 0, len(log))
	for _, id := range recorded {
		if ev, ok := byID[id]; ok {
			out = append(out, ev)
			delete(byID, id)
		}
	}
	var rest []*nostr.Event
	for _, ev := range byID {
		rest = append(rest, ev)
	}
	slices.SortFunc(rest, groups.LogOrder(relayPK))
	return append(out, rest...)
}
