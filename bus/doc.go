// Package bus is the toolbus tool-bus wire protocol: MCP JSON-RPC 2.0
// messages carried as signed Nostr events, wire-compatible with ContextVM
// (@contextvm/sdk).
//
// # Roles
//
// A Client is the caller: it sends MCP requests (initialize, tools/list,
// tools/call, …) to one server public key and matches responses to them.
// A Server is the worker: it answers those requests and publishes its
// announcements. Both roles are built on this package's primitives.
//
// # Messages
//
// Every MCP message is one kind-25910 event ([KindMessage]) whose content is
// the JSON-RPC message exactly as serialised by the sender. A request or
// client notification carries ["p", server]. A response, or a notification
// about a request, carries ["p", client] and ["e", request event id]: the e
// tag, not the JSON-RPC id, ties a response to its request, because JSON-RPC
// ids are only unique per client. The first message of a session may carry
// discovery tags ([TagSupportEncryption], [TagName], …).
//
// # Encryption
//
// Private traffic is a single NIP-59-style layer: the signed kind-25910
// event, serialised as JSON, is NIP-44 v2 encrypted to the recipient by a
// fresh random key that also signs the wrap (kind 1059, or 21059 when the
// relay need not store it). The wrap's only tag is ["p", recipient], and its
// created_at is the real time, since receivers subscribe with since=now.
// [Wrap] and [Unwrap] implement this; [Dedupe] lets a receiver drop the same
// wrap or the same inner event arriving twice (several relays, re-sends).
//
// # Announcements
//
// A server describes itself with replaceable events: [KindServerAnnouncement]
// (content: the MCP InitializeResult) and [KindToolsList],
// [KindResourcesList], [KindResourceTemplatesList], [KindPromptsList]
// (content: the corresponding MCP list result).
//
// go-nostr types appear only at this package's edge: events in and out.
// Signing and decryption go through [toolbus/signer].
package bus
