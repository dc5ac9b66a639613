package gitsig

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ownerDomain separates NIP-OA owner signatures from every other use of a key.
const ownerDomain = "nostr:agent-auth:"

// clause is one NIP-OA condition: kind=N, created_at<N or created_at>N.
type clause struct {
	op string // "kind=", "created_at<" or "created_at>"
	n  uint64
}

// parseConditions parses a NIP-OA conditions string: empty, or clauses joined
// by '&', each with a canonical decimal (no sign, no leading zero).
func parseConditions(s string) ([]clause, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, "&")
	out := make([]clause, 0, len(parts))
	for _, p := range parts {
		c, err := parseClause(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parseClause(p string) (clause, error) {
	for _, op := range []string{"kind=", "created_at<", "created_at>"} {
		num, ok := strings.CutPrefix(p, op)
		if !ok {
			continue
		}
		limit := uint64(MaxTime)
		if op == "kind=" {
			limit = 65535
		}
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil || n > limit || strconv.FormatUint(n, 10) != num {
			return clause{}, fmt.Errorf("condition %.40q has a malformed or out-of-range number", p)
		}
		return clause{op: op, n: n}, nil
	}
	return clause{}, fmt.Errorf("condition %.40q is not kind=, created_at< or created_at>", p)
}

// holdsAt reports whether the conditions hold for a commit signed at t.
// created_at clauses are checked against t, the closest thing a commit has
// to an event's created_at; kind= clauses have no git meaning and are
// skipped, as NIP-GS says.
func holdsAt(cs []clause, t int64) error {
	for _, c := range cs {
		switch {
		case c.op == "created_at<" && !(uint64(t) < c.n),
			c.op == "created_at>" && !(uint64(t) > c.n):
			return fmt.Errorf("condition %s%d does not hold at t=%d", c.op, c.n, t)
		}
	}
	return nil
}

// ownerHash is the message the owner signs to authorize agent pk.
func ownerHash(pk, conditions string) [32]byte {
	return sha256.Sum256([]byte(ownerDomain + pk + ":" + conditions))
}

var errOwnerSig = errors.New("the owner's signature does not verify for this signing key")

// ownerErr returns nil when oa, already structurally valid, proves that its
// owner authorized pk for a signature made at t.
func ownerErr(oa *Attestation, pk string, t int64) error {
	if !verifyHash(oa.Owner, oa.Sig, ownerHash(pk, oa.Conditions)) {
		return errOwnerSig
	}
	cs, err := parseConditions(oa.Conditions)
	if err != nil {
		return err
	}
	return holdsAt(cs, t)
}
