package relay

import (
	"encoding/hex"
	"errors"
	"reflect"
	_ "unsafe" // go:linkname

	"github.com/PowerDNS/lmdb-go/lmdb"
	elmdb "github.com/fiatjaf/eventstore/lmdb"
	"github.com/nbd-wtf/go-nostr"
)

// Several events per LMDB transaction. eventstore's SaveEvent opens one
// write transaction per event, and with LMDB's copy-on-write every
// transaction copies the pages it touches (the leaf and branch pages of
// the raw store and of each index, the tree roots, the free list) to
// fresh ones. With eventstore's MDB_WRITEMAP every such page then costs a
// write fault when written and a write-back, write-protection and TLB
// shootdown in the batch's sync. One transaction per run of consecutive
// plain events copies the pages the run shares once instead of once per
// event. Measured in the relay process with 16 publishers (~7 events per
// sync): page faults fell from ~15 to ~9 per event, msync from ~65 to
// ~44 µs of CPU per event, the writes themselves from ~50 to ~41 µs, and
// `toolbus bench relay` ingest_16 rose from ~5,300 to ~6,500 events/s.
//
// eventstore has no exported call that writes into a caller's
// transaction, so its own unexported save (encoding and index keys,
// exactly as SaveEvent writes them) is reached by go:linkname, and the id
// index it checks duplicates against by reflection — like the environment
// in commit.go, on pinned versions, and TestCommitterBatchesStoreEvents
// fails if either changes shape.
//
// Duplicates are detected here as a duplicate, too: eventstore v0.17.2's
// SaveEvent tests the id lookup the wrong way round (a found id falls
// through and the event is stored again, under a second serial, so a
// republished event came back twice from every query).

//go:linkname lmdbSave github.com/fiatjaf/eventstore/lmdb.(*LMDBBackend).save
func lmdbSave(b *elmdb.LMDBBackend, txn *lmdb.Txn, evt *nostr.Event) error

// lmdbIDIndexOf reaches the id index eventstore keeps unexported.
func lmdbIDIndexOf(store *elmdb.LMDBBackend) (lmdb.DBI, error) {
	f := reflect.ValueOf(store).Elem().FieldByName("indexId")
	if !f.IsValid() || f.Type() != reflect.TypeOf(lmdb.DBI(0)) {
		return 0, errors.New("lmdb: eventstore's id index not found (eventstore version changed?)")
	}
	return lmdb.DBI(f.Uint()), nil
}

// batchable reports whether r may share a transaction with its
// neighbours: a plain store of a non-replaceable event. Replacements go
// through eventstore's ReplaceEvent (it queries and deletes inside its
// transaction) and sync barriers write nothing.
func batchable(r *writeReq) bool {
	return r.ev != nil && !r.replace
}

// endsRun reports whether a run must be committed right after r: a
// deletion's saved hook looks its targets up in the store, so it must see
// exactly what was written before it and nothing after, as it did when
// every event had its own transaction.
func endsRun(r *writeReq) bool {
	return r.ev.Kind == nostr.KindDeletion
}

// saveRun writes run in one transaction, marking duplicates. If the
// transaction fails, each event is retried in a transaction of its own,
// so that one event the store refuses does not fail its neighbours.
func (c *committer) saveRun(run []*writeReq) {
	err := c.env.Update(func(txn *lmdb.Txn) error {
		for _, r := range run {
			if err := c.saveIn(txn, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		return
	}
	if len(run) > 1 {
		c.log.Warn("batched store write failed; retrying one by one", "events", len(run), "err", err)
		for _, r := range run {
			c.saveRun([]*writeReq{r})
		}
		return
	}
	c.log.Error("store write failed", "id", run[0].ev.ID, "err", err)
	run[0].err = errors.New("error: could not store the event")
}

// saveIn stores r.ev in txn unless its id is already stored (then r.dup),
// looked up as eventstore keys its id index: by the first 8 bytes. The
// lookup sees the transaction's own writes, so a duplicate within one run
// is caught too.
func (c *committer) saveIn(txn *lmdb.Txn, r *writeReq) error {
	r.dup = false
	var id [8]byte
	if len(r.ev.ID) != 64 {
		return errors.New("malformed event id")
	}
	if _, err := hex.Decode(id[:], []byte(r.ev.ID[:16])); err != nil {
		return err
	}
	switch _, err := txn.Get(c.ids, id[:]); {
	case err == nil:
		r.dup = true
		return nil
	case !lmdb.IsNotFound(err):
		return err
	}
	return lmdbSave(c.store, txn, r.ev)
}
