//go:build !libsecp256k1

package signer

import "github.com/btcsuite/btcd/btcec/v2"

// sharedX returns the x coordinate of k·P for the compressed point P, in
// pure Go (btcec). Variable-time, like the libsecp256k1 path: see
// ecdh_secp.go.
func sharedX(k *btcec.ModNScalar, compressed *[33]byte) ([32]byte, error) {
	var x [32]byte
	pub, err := btcec.ParsePubKey(compressed[:])
	if err != nil {
		return x, ErrInvalidPubKey
	}
	var point, shared btcec.JacobianPoint
	pub.AsJacobian(&point)
	btcec.ScalarMultNonConst(k, &point, &shared)
	shared.ToAffine()
	shared.X.PutBytesUnchecked(x[:])
	return x, nil
}
