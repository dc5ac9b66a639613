package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/fiatjaf/eventstore/lmdb"
	"github.com/fiatjaf/khatru"
)

// Baseline is the reference relay: khatru with its store hooks wired to the
// same LMDB eventstore backend toolbus uses, and nothing else — no policies,
// no authentication, no limits beyond khatru's own. It is deliberately built
// here rather than from the relay package, so that nothing toolbus adds can
// leak into the number it is compared with.
type Baseline struct {
	// Relay is the khatru relay; it serves websockets as an http.Handler.
	*khatru.Relay
	store *lmdb.LMDBBackend
}

// NewBaseline opens an LMDB store at dataDir/events with the backend's
// default options and returns a bare khatru relay on top of it.
func NewBaseline(dataDir string, logs io.Writer) (*Baseline, error) {
	store := &lmdb.LMDBBackend{Path: filepath.Join(dataDir, "events")}
	if err := store.Init(); err != nil {
		return nil, fmt.Errorf("open event store in %s: %w", store.Path, err)
	}
	kr := khatru.NewRelay()
	kr.Log = log.New(logs, "[baseline] ", log.LstdFlags)
	kr.StoreEvent = append(kr.StoreEvent, store.SaveEvent)
	kr.QueryEvents = append(kr.QueryEvents, store.QueryEvents)
	kr.DeleteEvent = append(kr.DeleteEvent, store.DeleteEvent)
	kr.ReplaceEvent = append(kr.ReplaceEvent, store.ReplaceEvent)
	return &Baseline{Relay: kr, store: store}, nil
}

// Close closes the store. khatru cannot wait for its websocket handlers, so
// call it only once every client has gone: closing LMDB under a running
// transaction crashes the process.
func (b *Baseline) Close() { b.store.Close() }

// ServeBaseline runs a Baseline on listen until ctx is done. On the way out
// it stops accepting connections but leaves the store open: every OK it sent
// was already committed (the backend syncs each transaction), and a khatru
// handler still running could crash on a closed store.
func ServeBaseline(ctx context.Context, listen, dataDir string, logs io.Writer) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	b, err := NewBaseline(dataDir, logs)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: b, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
