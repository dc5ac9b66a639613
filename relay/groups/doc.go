// Package groups is the NIP-29 (relay-based groups) state machine behind
// toolbus channels. It decides who may do what in a group, applies accepted
// events, and produces the relay-signed events (39000 metadata, 39001 admins,
// 39002 members, 39003 roles, and the relay's own 9000/9001 echoes) that
// describe the result. It owns no storage and no sockets: the relay calls
// [State.Check] before storing an event, [State.Apply] after, stores what the
// [Result] says, and consults [State.CanRead] on every delivery, so a removal
// takes effect for open subscriptions in the same operation.
//
// # Roles
//
// Every member holds exactly one of three roles, ranked owner > admin >
// member. A group always has at least one owner: its creator starts as owner,
// and the last owner can be neither removed, demoted nor leave. Roles other
// than these three are refused rather than stored, because a role that grants
// nothing would only mislead the people reading 39001.
//
// # Permissions
//
//	9007 create-group   any workspace member; the group id must be new
//	9002 edit-metadata  admin or owner
//	9000 put-user       admin or owner; granting admin/owner, or changing the
//	                    role of an admin/owner, needs an owner
//	9001 remove-user    admin or owner for members; owner for admins/owners;
//	                    anyone may remove themselves; never the last owner
//	9005 delete-event   admin or owner, or the author of every target event
//	9008 delete-group   owner
//	9009 create-invite  admin or owner (codes are single-use)
//	9021 join-request   any workspace member: open group → member at once;
//	                    closed group → member with a valid invite code,
//	                    otherwise pending until an admin puts the user
//	9022 leave-request  the member themselves (a pending request is withdrawn)
//	content (kind 9 …)  members only, in every group
//
// Writing is members-only even in open groups: in a workspace a post is a
// statement by someone the group agreed to hear from, and joining an open
// group is one 9021 away. "private" restricts reading to members; "closed"
// restricts joining to invitation or approval. 39000 therefore always carries
// the NIP-29 "restricted" flag.
//
// Events signed by the relay key are authorised for every action: they are
// how the relay records its own decisions (join echoes, workspace bans). When
// the relay removes a group's last owner, ownership passes to the admin with
// the lowest pubkey, else to the member with the lowest pubkey; a group left
// with nobody is deleted.
//
// # Replay
//
// State is rebuilt by replaying the log. A relay that records the order in
// which it applied state-changing events (Options.RecordsOrder, as toolbus
// does) replays them in that order ([State.RebuildOrdered]) and accepts live
// events whatever their timestamps within the clock window. Without such a
// record ([State.Rebuild]), the log is replayed in created_at order, a
// channel's creation first and its deletion last in a second, then users'
// events before the relay's, then by id; for that replay to reproduce what
// happened, a state-changing event that sorts before the group's latest one
// is refused. Either way events outside ±MaxSkew of the relay clock are
// refused, which stops replays of old moderation events.
// NIP-29 "previous" timeline references are ignored: every member of a
// workspace group talks to this one relay, so there is no fork to guard
// against.
package groups
