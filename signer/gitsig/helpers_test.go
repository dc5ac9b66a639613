package gitsig

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// testKey signs with BIP-340's nonce derivation and all-zero auxiliary
// randomness, so its signatures are reproducible: test vectors need that.
// NIP-GS allows it; real signing uses signer.Local.
type testKey struct{ priv *btcec.PrivateKey }

var _ signer.Signer = testKey{}

// newTestKey returns the key whose secret is b repeated 32 times.
func newTestKey(b byte) testKey {
	priv, _ := btcec.PrivKeyFromBytes(bytes.Repeat([]byte{b}, 32))
	return testKey{priv}
}

func (k testKey) PublicKey() string {
	return hex.EncodeToString(schnorr.SerializePubKey(k.priv.PubKey()))
}

func (k testKey) secretHex() string { return hex.EncodeToString(k.priv.Serialize()) }

func (k testKey) SignEvent(context.Context, *nostr.Event) error {
	return errors.New("testKey signs hashes only")
}

func (k testKey) SignHash(_ context.Context, h [32]byte) ([64]byte, error) {
	var out [64]byte
	sig, err := schnorr.Sign(k.priv, h[:], schnorr.CustomNonce([32]byte{}))
	if err != nil {
		return out, err
	}
	copy(out[:], sig.Serialize())
	return out, nil
}

// attest returns owner's NIP-OA attestation of agent under conditions.
func attest(t testing.TB, owner testKey, agent, conditions string) *Attestation {
	t.Helper()
	sig, err := owner.SignHash(context.Background(), ownerHash(agent, conditions))
	if err != nil {
		t.Fatal(err)
	}
	return &Attestation{Owner: owner.PublicKey(), Conditions: conditions, Sig: hex.EncodeToString(sig[:])}
}

// forceSign signs without the checks of newEnvelope, to build signatures
// that carry an attestation Sign would refuse.
func forceSign(t testing.TB, k testKey, payload string, ts int64, oa *Attestation) string {
	t.Helper()
	h, err := signingHash(ts, oa, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := k.SignHash(context.Background(), h)
	env := &envelope{pk: k.PublicKey(), sig: hex.EncodeToString(sig[:]), t: ts, oa: oa}
	return string(armor(env.canonical()))
}

// cliResult is what one in-process run of the program produced.
type cliResult struct {
	code                   int
	stdout, stderr, status string
}

// cliEnv stands in for git config, the clock and the key source.
type cliEnv struct {
	config  map[string]string
	key     signer.Signer
	loadErr error
	now     int64
}

// runCLI runs the program in-process. --status-fd=3 reaches a buffer of
// its own, so status lines and human messages can be checked apart.
func runCLI(e cliEnv, stdin io.Reader, args ...string) cliResult {
	var out, errb, st bytes.Buffer
	c := &cli{opts: parseArgs(args), stdin: stdin, stdout: &out, stderr: &errb,
		config: func(k string) string { return e.config[k] },
		now:    func() time.Time { return time.Unix(e.now, 0) },
		load: func(string) (signer.Signer, error) {
			if e.loadErr != nil {
				return nil, e.loadErr
			}
			return e.key, nil
		}}
	code := c.run(func(fd int) (io.Writer, error) {
		if fd == 3 {
			return &st, nil
		}
		return nil, errors.New("no such descriptor")
	})
	return cliResult{code, out.String(), errb.String(), st.String()}
}

// writeTemp writes content to a fresh file and returns its path.
func writeTemp(t testing.TB, content string) string {
	t.Helper()
	path := t.TempDir() + "/sig.asc"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
