package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/PowerDNS/lmdb-go/lmdb"
	elmdb "github.com/fiatjaf/eventstore/lmdb"
	"github.com/nbd-wtf/go-nostr"
)

// Group commit. eventstore's LMDB backend commits (and syncs) one event
// per transaction: ~1 ms of fsync each, whatever the number of publishers.
// The committer runs every write on one goroutine with the environment
// in MDB_NOSYNC mode and syncs once per batch — all the writes that queued
// while the previous sync ran — and only then completes them: an OK true
// still means "on disk", but sixteen publishers share one fsync.
//
// MDB_NOSYNC is set through reflection on eventstore's unexported
// environment (the one part of khatru/eventstore that cannot be fixed from
// outside; versions are pinned and a test fails if the field moves). The
// cost: on a power loss between a transaction and its batch's sync, LMDB
// (opened with MDB_WRITEMAP by eventstore) may lose or, rarely, damage the
// last batch; a process crash (kill -9) loses nothing, since the writes are
// in the page cache. Events are acknowledged only after the sync.
//
// A batch's plain events share one LMDB transaction (storebatch.go), which
// is what makes a batch cheap: LMDB copies every page a transaction
// touches, and every copied page costs a page fault and a write-back in
// the sync.
//
// Writing the next batch while the previous one syncs (a writer and a
// syncer goroutine) was tried and measured, and is not done: on this
// 2-core machine ingest is CPU-bound, not disk-bound — a sync's I/O wait
// is filled by the connections verifying the next events anyway — and
// overlapping splits the writes into more, smaller transactions, so more
// pages are copied, faulted and written back per event. With 16
// publishers (toolbus bench relay, ingest_16) the overlapped committer
// reached ~6,700 events/s against ~7,200 for this serial one, at ~11
// against ~8.5 page faults per event.

// maxBatch bounds how many writes share one sync.
const maxBatch = 1024

// errClosed refuses writes after shutdown began.
var errClosed = errors.New("error: relay is shutting down")

type committer struct {
	store *elmdb.LMDBBackend
	env   *lmdb.Env
	ids   lmdb.DBI // eventstore's id index (storebatch.go)
	log   *slog.Logger
	reqs  chan *writeReq
	done  chan struct{}
	disk  *diskGuard

	mu     sync.RWMutex
	closed bool

	// syncHook, when set, is called in place of each batch's sync and
	// handed the real one: a test seam (durable_test.go) to hold a sync
	// or fail it. Nil outside tests.
	syncHook atomic.Pointer[func(sync func() error) error]
}

// writeReq is one event on its way to disk.
type writeReq struct {
	ev      *nostr.Event
	replace bool
	saved   func(*writeReq) // after its transaction, before the sync: delivery
	dup     bool
	err     error
	done    chan struct{}
}

// wait blocks until the write is durable (or failed).
func (r *writeReq) wait() error {
	<-r.done
	return r.err
}

func newCommitter(store *elmdb.LMDBBackend, disk *diskGuard, log *slog.Logger) (*committer, error) {
	env, err := lmdbEnvOf(store)
	if err != nil {
		return nil, err
	}
	ids, err := lmdbIDIndexOf(store)
	if err != nil {
		return nil, err
	}
	if err := env.SetFlags(lmdb.NoSync); err != nil {
		return nil, fmt.Errorf("lmdb: set NOSYNC: %w", err)
	}
	c := &committer{store: store, env: env, ids: ids, log: log, reqs: make(chan *writeReq, maxBatch),
		done: make(chan struct{}), disk: disk}
	go c.run()
	return c, nil
}

// lmdbEnvOf reaches the environment eventstore keeps unexported.
func lmdbEnvOf(store *elmdb.LMDBBackend) (*lmdb.Env, error) {
	f := reflect.ValueOf(store).Elem().FieldByName("lmdbEnv")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*lmdb.Env)(nil)) || f.IsNil() {
		return nil, errors.New("lmdb: eventstore's environment not found (eventstore version changed?)")
	}
	return (*lmdb.Env)(unsafe.Pointer(f.Pointer())), nil
}

// submit queues ev; saved runs once it is committed (before it is synced).
func (c *committer) submit(ev *nostr.Event, replace bool, saved func(*writeReq)) *writeReq {
	r := &writeReq{ev: ev, replace: replace, saved: saved, done: make(chan struct{})}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		r.err = errClosed
		close(r.done)
		return r
	}
	c.reqs <- r
	return r
}

// write stores ev durably and waits.
func (c *committer) write(ev *nostr.Event, replace bool) error {
	return c.submit(ev, replace, nil).wait()
}

// flush makes every write so far durable, including deletions made
// outside the committer (their transactions are not synced either).
func (c *committer) flush() error {
	return c.submit(nil, false, nil).wait()
}

// close stops accepting writes, finishes the queued ones and syncs.
func (c *committer) close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.reqs)
	}
	c.mu.Unlock()
	<-c.done
}

func (c *committer) run() {
	defer close(c.done)
	batch := make([]*writeReq, 0, maxBatch)
	for r := range c.reqs {
		batch = append(batch[:0], r)
	collect:
		for len(batch) < maxBatch {
			select {
			case next, ok := <-c.reqs:
				if !ok {
					break collect
				}
				batch = append(batch, next)
			default:
				break collect
			}
		}
		c.commit(batch)
	}
}

// commit writes a batch — each run of plain events in one transaction,
// anything else on its own — syncs once, and completes every request.
func (c *committer) commit(batch []*writeReq) {
	if !c.disk.ok() {
		c.log.Error("refusing writes: data_dir is nearly full", "batch", len(batch))
		for _, r := range batch {
			if r.ev != nil {
				r.err = errDiskFull
			}
			close(r.done)
		}
		return
	}
	for rest := batch; len(rest) > 0; {
		n := 1
		if batchable(rest[0]) {
			for n < len(rest) && batchable(rest[n]) && !endsRun(rest[n-1]) {
				n++
			}
			c.saveRun(rest[:n]) // one transaction: see storebatch.go
		} else {
			rest[0].err = c.save(rest[0])
		}
		// Live delivery (and a deletion's own work) once the transaction
		// is committed, in order.
		for _, r := range rest[:n] {
			if r.err == nil && !r.dup && r.saved != nil {
				r.saved(r)
			}
		}
		rest = rest[n:]
	}
	syncErr := c.syncBatch()
	if syncErr != nil {
		c.log.Error("lmdb sync failed: events not acknowledged", "err", syncErr, "batch", len(batch))
	}
	for _, r := range batch {
		if r.err == nil && syncErr != nil {
			r.err = fmt.Errorf("error: could not persist the event")
		}
		close(r.done)
	}
}

// syncBatch makes every transaction so far durable.
func (c *committer) syncBatch() error {
	if h := c.syncHook.Load(); h != nil {
		return (*h)(c.syncEnv)
	}
	return c.syncEnv()
}

func (c *committer) syncEnv() error { return c.env.Sync(true) }

// save handles what saveRun does not: sync barriers, which write
// nothing, and replaceable events, which eventstore's ReplaceEvent
// compares with the stored version inside its own transaction.
func (c *committer) save(r *writeReq) error {
	if r.ev == nil {
		return nil // a sync barrier (after deletions)
	}
	if err := c.store.ReplaceEvent(context.Background(), r.ev); err != nil {
		c.log.Error("store write failed", "id", r.ev.ID, "err", err)
		return fmt.Errorf("error: could not store the event")
	}
	return nil
}
