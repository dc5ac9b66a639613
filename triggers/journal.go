package triggers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// States of a (trigger, event) entry, in order. Every change is in the
// journal, fsynced, before the step it announces.
const (
	stateQueued  = "queued"  // seen; the event is kept here, so a replaced 30618 is not lost
	stateCalling = "calling" // request built and signed; it may or may not have reached the relay
	stateSent    = "sent"    // the relay accepted the request: never send it again
	statePosting = "posting" // outcome known; the signed messages are kept here
	stateDone    = "done"    // finished; only the id is remembered
)

// record is one journal line. An entry record carries only the fields that
// changed; loading merges them. Kind "start" records a trigger's first
// run, "repo" the latest state seen of a repository.
type record struct {
	Kind      string        `json:"k"`
	Trigger   string        `json:"t,omitempty"`
	EventID   string        `json:"e,omitempty"`
	State     string        `json:"s,omitempty"`
	CreatedAt int64         `json:"c,omitempty"`
	Event     *nostr.Event  `json:"ev,omitempty"`
	Repo      *RepoInfo     `json:"repo,omitempty"`
	Channel   string        `json:"ch,omitempty"`
	Call      *callRecord   `json:"call,omitempty"`
	Out       []nostr.Event `json:"out,omitempty"`
	Note      string        `json:"note,omitempty"`
	Start     int64         `json:"start,omitempty"`
}

// entry is the merged state of one (trigger, event).
type entry = record

type entryKey struct{ trigger, event string }

// journal is the runner's durable memory, an append-only JSON-lines file
// in the state directory, rewritten compactly when it opens and when it
// has grown well past its live content.
type journal struct {
	mu        sync.Mutex
	dir       string
	f         *os.File
	unlock    func()
	entries   map[entryKey]*entry
	starts    map[string]int64
	repos     map[string]*RepoInfo // by "<owner>/<repo>"
	lines     int
	retention time.Duration
}

const journalName = "journal.jsonl"

// openJournal locks dir (one runner per state directory, or two could run
// the same event) and loads what it holds.
func openJournal(dir string, retention time.Duration) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	j := &journal{dir: dir, unlock: unlock, entries: map[entryKey]*entry{}, starts: map[string]int64{},
		repos: map[string]*RepoInfo{}, retention: retention}
	if err := j.load(filepath.Join(dir, journalName)); err != nil {
		unlock()
		return nil, err
	}
	if err := j.compact(); err != nil {
		unlock()
		return nil, err
	}
	return j, nil
}

// apply merges r into the in-memory state.
func (j *journal) apply(r *record) {
	switch r.Kind {
	case "start":
		j.starts[r.Trigger] = r.Start
	case "repo":
		j.repos[r.Repo.Owner+"/"+r.Repo.Name] = r.Repo
	case "entry":
		k := entryKey{r.Trigger, r.EventID}
		e := j.entries[k]
		if e == nil {
			e = &entry{Kind: "entry", Trigger: r.Trigger, EventID: r.EventID}
			j.entries[k] = e
		}
		merge(e, r)
	}
}

// merge copies r's set fields into e; a done entry drops its payload.
func merge(e *entry, r *record) {
	if r.State != "" {
		e.State = r.State
	}
	if r.CreatedAt != 0 {
		e.CreatedAt = r.CreatedAt
	}
	if r.Event != nil {
		e.Event = r.Event
	}
	if r.Repo != nil {
		e.Repo = r.Repo
	}
	if r.Channel != "" {
		e.Channel = r.Channel
	}
	if r.Call != nil {
		e.Call = r.Call
	}
	if r.Out != nil {
		e.Out = r.Out
	}
	if r.Note != "" {
		e.Note = r.Note
	}
	if e.State == stateDone {
		e.Event, e.Repo, e.Call, e.Out = nil, nil, nil, nil
	}
}

// put applies records and makes them durable before returning.
func (j *journal) put(recs ...*record) error {
	if len(recs) == 0 {
		return nil
	}
	var buf []byte
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(buf); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	for _, r := range recs {
		j.apply(r)
	}
	j.lines += len(recs)
	if j.lines > 2*len(j.entries)+1000 {
		return j.compact()
	}
	return nil
}

// known reports whether the journal has an entry for the event.
func (j *journal) known(trigger, event string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.entries[entryKey{trigger, event}] != nil
}

// unfinished returns copies of the entries not done.
func (j *journal) unfinished() []*entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*entry
	for _, e := range j.entries {
		if e.State != stateDone {
			cp := *e
			out = append(out, &cp)
		}
	}
	return out
}

// start returns a trigger's first-run time, recording def when new.
func (j *journal) start(trigger string, def int64) (int64, error) {
	j.mu.Lock()
	at, ok := j.starts[trigger]
	j.mu.Unlock()
	if ok {
		return at, nil
	}
	return def, j.put(&record{Kind: "start", Trigger: trigger, Start: def})
}

// repo returns the latest state seen of a repository, or nil.
func (j *journal) repo(key string) *RepoInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.repos[key]
}

// close releases the file and the directory lock.
func (j *journal) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.f.Close()
		j.f = nil
	}
	j.unlock()
}
