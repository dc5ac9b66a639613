package groups

import (
	"context"
	"log/slog"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Signer signs the relay's group events. toolbus/signer.Signer satisfies it.
type Signer interface {
	// PublicKey returns the relay's public key as 64 lowercase hex characters.
	PublicKey() string
	// SignEvent sets ev.PubKey, ev.ID and ev.Sig.
	SignEvent(ctx context.Context, ev *nostr.Event) error
}

// Options tunes a [State]. The zero value is usable.
type Options struct {
	// WorkspaceMember reports whether pk belongs to the workspace. Only
	// workspace members may create groups, join, or be put into one. Nil
	// means everyone qualifies. It is not consulted during [State.Rebuild]:
	// the log records what was allowed when it happened.
	WorkspaceMember func(pk string) bool
	// Lookup returns a stored event by id, or nil. With it, a member's
	// delete-event naming someone else's event is refused outright; without
	// it, the [Deletion] is limited to the member's own events instead.
	Lookup func(id string) *nostr.Event
	// MaxSkew is how far a state-changing event's created_at may be from
	// the relay clock. Zero means one hour.
	MaxSkew time.Duration
	// Now is the relay clock. Nil means time.Now; tests set it.
	Now func() time.Time
	// Logger receives replay diagnostics. Nil discards them.
	Logger *slog.Logger
	// RecordsOrder says the caller keeps the order in which it applied
	// state-changing events and replays them in that order
	// ([State.RebuildOrdered]). Events are then accepted in any order of
	// their timestamps (an agent that creates a channel and adds three
	// people in one second is not refused). Without it, an event that
	// would replay out of order (see [State.Rebuild]) is refused.
	RecordsOrder bool
}

// Role names. The set is fixed; see the package documentation.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// rank orders roles so permission checks can compare them; 0 is "none".
func rank(role string) int {
	switch role {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}

// roleDescriptions is the content of every group's 39003, highest rank first.
var roleDescriptions = [][2]string{
	{RoleOwner, "full control, including deleting the group and managing admins"},
	{RoleAdmin, "edits metadata, adds and removes members, deletes messages"},
	{RoleMember, "reads and posts"},
}

// Kinds this package interprets, named for readability.
const (
	kindPutUser      = nostr.KindSimpleGroupPutUser
	kindRemoveUser   = nostr.KindSimpleGroupRemoveUser
	kindEditMetadata = nostr.KindSimpleGroupEditMetadata
	kindDeleteEvent  = nostr.KindSimpleGroupDeleteEvent
	kindCreateGroup  = nostr.KindSimpleGroupCreateGroup
	kindDeleteGroup  = nostr.KindSimpleGroupDeleteGroup
	kindCreateInvite = nostr.KindSimpleGroupCreateInvite
	kindJoinRequest  = nostr.KindSimpleGroupJoinRequest
	kindLeaveRequest = nostr.KindSimpleGroupLeaveRequest
	kindMetadata     = nostr.KindSimpleGroupMetadata
	kindAdmins       = nostr.KindSimpleGroupAdmins
	kindMembers      = nostr.KindSimpleGroupMembers
	kindRoles        = nostr.KindSimpleGroupRoles
)

// metaKinds are the relay-signed kinds, in the order they are emitted.
var metaKinds = []int{kindMetadata, kindAdmins, kindMembers, kindRoles}

// IsMetadataKind reports whether kind is one of the relay-signed 39000-39003.
func IsMetadataKind(kind int) bool { return kind >= kindMetadata && kind <= kindRoles }

// IsModerationKind reports whether kind is a NIP-29 moderation kind
// (9000-9020) or a join/leave request (9021/9022).
func IsModerationKind(kind int) bool { return kind >= kindPutUser && kind <= kindLeaveRequest }

// changesState reports whether a kind alters group state, and so must be
// ordered and replayed. delete-event is moderation but leaves state alone.
func changesState(kind int) bool {
	switch kind {
	case kindPutUser, kindRemoveUser, kindEditMetadata, kindCreateGroup,
		kindDeleteGroup, kindCreateInvite, kindJoinRequest, kindLeaveRequest:
		return true
	}
	return false
}
