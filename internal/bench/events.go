package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// signed is one pre-signed event with its ready-to-send EVENT frame.
type signed struct {
	id  string
	msg []byte
}

// filler pads contents to a typical short-note size, so that the store and
// the wire carry realistic bytes rather than a dozen.
var filler = strings.Repeat("lorem ipsum ", 12)

// signEvents signs n events of kind by key, spread over every CPU, before
// any timing starts: client-side signing must not be charged to a relay.
// tag makes the contents (and so the ids) unique to one use.
func signEvents(key *signer.Local, kind, n int, tag string) ([]signed, error) {
	out := make([]signed, n)
	workers := runtime.NumCPU()
	errs := make([]error, workers)
	now := nostr.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				ev := nostr.Event{Kind: kind, CreatedAt: now,
					Content: fmt.Sprintf("%s #%d %s", tag, i, filler)}
				if errs[w] = signOne(key, &ev, &out[i]); errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func signOne(key *signer.Local, ev *nostr.Event, dst *signed) error {
	if err := key.SignEvent(context.Background(), ev); err != nil {
		return err
	}
	msg, err := json.Marshal([]any{"EVENT", ev})
	if err != nil {
		return err
	}
	*dst = signed{id: ev.ID, msg: msg}
	return nil
}

// newKeys generates n keys.
func newKeys(n int) ([]*signer.Local, error) {
	keys := make([]*signer.Local, n)
	for i := range keys {
		k, err := signer.Generate()
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}
