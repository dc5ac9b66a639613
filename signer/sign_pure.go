//go:build !libsecp256k1

package signer

import (
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// eventKey holds the parsed secret key, so that signing skips what
// go-nostr's Event.Sign redoes on every call: decoding the hex secret and
// deriving its public key.
type eventKey struct {
	priv *btcec.PrivateKey
}

func newEventKey(sk *[32]byte) *eventKey {
	priv, _ := btcec.PrivKeyFromBytes(sk[:])
	return &eventKey{priv: priv}
}

// sign returns the BIP-340 signature of hash (btcec's deterministic nonce),
// without btcec's verification of its own result, as go-nostr signs.
func (k *eventKey) sign(hash *[32]byte) ([64]byte, error) {
	var out [64]byte
	sig, err := schnorr.Sign(k.priv, hash[:], schnorr.FastSign())
	if err != nil {
		return out, err
	}
	copy(out[:], sig.Serialize())
	return out, nil
}
