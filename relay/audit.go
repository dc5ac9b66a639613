package relay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// auditLog appends every tool-bus event to day files
// (data_dir/audit/YYYY-MM-DD.jsonl), separate from the event store. Plaintext
// messages are kept whole (signature and all, so an admin can verify who
// asked what); gift wraps only as their envelope — the content is encrypted
// to someone else and useless here. Appends go through a buffered channel to
// one writer that syncs in batches, so auditing never adds an fsync to a
// tool call; the cost is that the last ~flushEvery of records can be lost in
// a crash. Admins query it with the NIP-86 method listauditevents.
type auditLog struct {
	dir       string
	retention time.Duration
	log       *slog.Logger
	in        chan auditRecord
	flushReq  chan chan struct{}
	done      chan struct{}
	mu        sync.Mutex // serialises file access between writer and queries
	dropped   int
}

// auditRecord is one line of the audit log.
type auditRecord struct {
	Event nostr.Event `json:"event"`
	// Envelope is true when Content was removed (gift wraps).
	Envelope bool `json:"envelope,omitempty"`
	// Size is the original content length.
	Size int `json:"size"`
	// ReceivedAt is when the relay accepted it (unix ms).
	ReceivedAt int64 `json:"received_at"`
}

const (
	auditFlushEvery = 200 * time.Millisecond
	auditBuffer     = 65536
)

func newAuditLog(dir string, retentionDays int, logger *slog.Logger) (*auditLog, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create audit dir: %w", err)
	}
	a := &auditLog{dir: dir, retention: time.Duration(retentionDays) * 24 * time.Hour, log: logger,
		in: make(chan auditRecord, auditBuffer), flushReq: make(chan chan struct{}), done: make(chan struct{})}
	go a.run()
	return a, nil
}

// append queues ev; it never blocks the caller. A full buffer drops the
// record and counts it (logged), rather than stall tool traffic.
func (a *auditLog) append(ev *nostr.Event) {
	if a == nil {
		return
	}
	rec := auditRecord{Event: *ev, Size: len(ev.Content), ReceivedAt: time.Now().UnixMilli()}
	if isWrapKind(ev.Kind) {
		rec.Event.Content, rec.Envelope = "", true
	}
	select {
	case a.in <- rec:
	default:
		a.mu.Lock()
		a.dropped++
		a.mu.Unlock()
	}
}

// close flushes what is queued and stops the writer.
func (a *auditLog) close() {
	if a == nil {
		return
	}
	close(a.in)
	<-a.done
}

func (a *auditLog) run() {
	defer close(a.done)
	tick := time.NewTicker(auditFlushEvery)
	defer tick.Stop()
	var batch []auditRecord
	for {
		select {
		case rec, ok := <-a.in:
			if !ok {
				a.write(batch)
				return
			}
			batch = append(batch, rec)
		case reply := <-a.flushReq:
			a.drain(&batch)
			a.write(batch)
			batch = batch[:0]
			close(reply)
		case <-tick.C:
			a.write(batch)
			batch = batch[:0]
			a.prune(time.Now())
		}
	}
}

// drain moves everything already queued into batch.
func (a *auditLog) drain(batch *[]auditRecord) {
	for {
		select {
		case rec, ok := <-a.in:
			if !ok {
				return
			}
			*batch = append(*batch, rec)
		default:
			return
		}
	}
}

// flush waits until every record appended before the call is on disk.
func (a *auditLog) flush() {
	reply := make(chan struct{})
	select {
	case a.flushReq <- reply:
		<-reply
	case <-a.done:
	}
}

func (a *auditLog) dayFile(t time.Time) string {
	return filepath.Join(a.dir, t.UTC().Format("2006-01-02")+".jsonl")
}

// write appends a batch with one fsync.
func (a *auditLog) write(batch []auditRecord) {
	if len(batch) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.OpenFile(a.dayFile(time.Now()), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		a.log.Error("audit log write failed", "err", err, "records", len(batch))
		return
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range batch {
		_ = enc.Encode(&batch[i])
	}
	if err := w.Flush(); err == nil {
		err = f.Sync()
	}
	f.Close()
	if a.dropped > 0 {
		a.log.Warn("audit records dropped: buffer full", "count", a.dropped)
		a.dropped = 0
	}
}

// prune removes day files older than the retention.
func (a *auditLog) prune(now time.Time) {
	cutoff := now.Add(-a.retention).UTC().Format("2006-01-02")
	names, _ := filepath.Glob(filepath.Join(a.dir, "*.jsonl"))
	for _, n := range names {
		if strings.TrimSuffix(filepath.Base(n), ".jsonl") < cutoff {
			os.Remove(n)
		}
	}
}

// query returns up to limit records whose event matches f, newest first,
// including everything appended before the call.
func (a *auditLog) query(f nostr.Filter, limit int) ([]auditRecord, error) {
	a.flush()
	a.mu.Lock()
	defer a.mu.Unlock()
	names, err := filepath.Glob(filepath.Join(a.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	var out []auditRecord
	for _, n := range names {
		recs, err := readAuditFile(n)
		if err != nil {
			return nil, err
		}
		for i := len(recs) - 1; i >= 0 && len(out) < limit; i-- {
			if f.Matches(&recs[i].Event) {
				out = append(out, recs[i])
			}
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

func readAuditFile(name string) ([]auditRecord, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []auditRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r auditRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			recs = append(recs, r)
		}
	}
	return recs, sc.Err()
}
