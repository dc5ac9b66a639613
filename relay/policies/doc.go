// Package policies holds the relay's rules as small constructors that return
// khatru hook functions, so each rule can be appended to any khatru relay's
// hook slices and tested alone:
//
//	rl.RejectEvent = append(rl.RejectEvent, policies.PreventLargeTags(2000))
//
// toolbus's own connection engine (package relay) runs the same hook slices,
// so a rule behaves the same whether it is served by khatru's websocket
// handler or by toolbus's. Rules read the caller's identity through [Authed]
// and [IP], which understand both engines.
//
// Every rejection message starts with a NIP-01 machine-readable prefix
// (invalid:, restricted:, rate-limited:, auth-required:, blocked:).
package policies
