//go:build libsecp256k1

package signer

/*
#include <stddef.h>

// The libsecp256k1 that go-nostr compiles into the binary under the same
// build tag (its signature_libsecp256k1.go). Declared here rather than
// included: a second copy of the library would define every symbol twice.
// These three functions are in its core API, so they are linked in whether
// or not its ECDH module is.
typedef struct secp256k1_context_struct secp256k1_context;
typedef struct { unsigned char data[64]; } secp256k1_pubkey;
extern const secp256k1_context *secp256k1_context_static;
extern int secp256k1_ec_pubkey_parse(const secp256k1_context *ctx,
	secp256k1_pubkey *pubkey, const unsigned char *input, size_t inputlen);
extern int secp256k1_ec_pubkey_tweak_mul(const secp256k1_context *ctx,
	secp256k1_pubkey *pubkey, const unsigned char *tweak32);
extern int secp256k1_ec_pubkey_serialize(const secp256k1_context *ctx,
	unsigned char *output, size_t *outputlen, const secp256k1_pubkey *pubkey,
	unsigned int flags);

// SECP256K1_EC_COMPRESSED in secp256k1.h.
#define TB_EC_COMPRESSED ((1 << 1) | (1 << 8))

// tb_shared_x writes the x coordinate of k·P to x32, P given compressed in
// in33, in one cgo call. Returns 0 when P is not on the curve or k is not a
// valid scalar.
static int tb_shared_x(unsigned char *x32, const unsigned char *in33, const unsigned char *k32) {
	secp256k1_pubkey p;
	unsigned char out[33];
	size_t outlen = sizeof(out);
	int i;
	if (!secp256k1_ec_pubkey_parse(secp256k1_context_static, &p, in33, 33)) return 0;
	if (!secp256k1_ec_pubkey_tweak_mul(secp256k1_context_static, &p, k32)) return 0;
	if (!secp256k1_ec_pubkey_serialize(secp256k1_context_static, out, &outlen, &p, TB_EC_COMPRESSED)) return 0;
	for (i = 0; i < 32; i++) x32[i] = out[i + 1];
	return 1;
}
*/
import "C"

import (
	"unsafe"

	"github.com/btcsuite/btcd/btcec/v2"
	// Links the library the declarations above refer to.
	_ "github.com/nbd-wtf/go-nostr"
)

// sharedX returns the x coordinate of k·P for the compressed point P with
// libsecp256k1: 4–6× faster than btcec here, and a gift-wrapped tool call
// does four of these.
//
// tweak_mul is variable-time in the scalar, as btcec's ScalarMultNonConst
// (the pure-Go path) is too; libsecp256k1's constant-time ECDH lives in a
// module go-nostr does not compile. Every wrap key is used once, so only
// a node's long-term key is exposed to timing, and only to a peer able to
// time thousands of decryptions on the same host.
func sharedX(k *btcec.ModNScalar, compressed *[33]byte) ([32]byte, error) {
	var x [32]byte
	sk := k.Bytes()
	defer clear(sk[:])
	ok := C.tb_shared_x((*C.uchar)(unsafe.Pointer(&x[0])),
		(*C.uchar)(unsafe.Pointer(&compressed[0])),
		(*C.uchar)(unsafe.Pointer(&sk[0])))
	if ok != 1 {
		return x, ErrInvalidPubKey
	}
	return x, nil
}
