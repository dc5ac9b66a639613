//go:build libsecp256k1

package signer

/*
// More of go-nostr's libsecp256k1 (see ecdh_secp.go): the extrakeys and
// schnorrsig modules it compiles in.
typedef struct secp256k1_context_struct secp256k1_context;
typedef struct { unsigned char data[96]; } secp256k1_keypair;
extern secp256k1_context *secp256k1_context_create(unsigned int flags);
extern int secp256k1_keypair_create(const secp256k1_context *ctx,
	secp256k1_keypair *keypair, const unsigned char *seckey);
extern int secp256k1_schnorrsig_sign32(const secp256k1_context *ctx,
	unsigned char *sig64, const unsigned char *msg32,
	const secp256k1_keypair *keypair, const unsigned char *aux_rand32);

// SECP256K1_CONTEXT_NONE in secp256k1.h: every context can sign.
#define TB_CONTEXT_NONE 1
*/
import "C"

import (
	"crypto/rand"
	"errors"
	"sync"
	"unsafe"
)

// signContext is this package's own libsecp256k1 context: the static one
// cannot sign, and go-nostr's is unexported.
var signContext = sync.OnceValue(func() *C.secp256k1_context {
	return C.secp256k1_context_create(C.TB_CONTEXT_NONE)
})

// eventKey is a secret key expanded once into a libsecp256k1 keypair.
// go-nostr's Event.Sign expands the hex secret on every call, which is half
// of what signing costs; a worker signs every reply with the same key.
type eventKey struct {
	pair C.secp256k1_keypair
}

// newEventKey expands sk, or returns nil when libsecp256k1 refuses it
// (newLocal has already checked the key, so that means a broken library).
func newEventKey(sk *[32]byte) *eventKey {
	ctx := signContext()
	if ctx == nil {
		return nil
	}
	k := new(eventKey)
	if C.secp256k1_keypair_create(ctx, &k.pair, (*C.uchar)(unsafe.Pointer(&sk[0]))) != 1 {
		return nil
	}
	return k
}

// sign returns the BIP-340 signature of hash, with fresh auxiliary
// randomness as go-nostr uses.
func (k *eventKey) sign(hash *[32]byte) ([64]byte, error) {
	var sig [64]byte
	var aux [32]byte
	if _, err := rand.Read(aux[:]); err != nil {
		return sig, err
	}
	if C.secp256k1_schnorrsig_sign32(signContext(), (*C.uchar)(unsafe.Pointer(&sig[0])),
		(*C.uchar)(unsafe.Pointer(&hash[0])), &k.pair, (*C.uchar)(unsafe.Pointer(&aux[0]))) != 1 {
		return sig, errors.New("libsecp256k1 refused to sign")
	}
	return sig, nil
}
