// Package gitbridge hosts git repositories over smart HTTP, authenticated
// with NIP-98 and authorised by workspace membership and NIP-34
// announcements. spec/PROTOCOL.md §9 is the public contract; this comment
// records the decisions behind the code.
//
// # Layout
//
// Requests arrive at /git/<owner npub or hex>/<repo>.git/{info/refs,
// git-upload-pack,git-receive-pack} (the bridge expects the full path, not a
// stripped one). Repositories live in DataDir/git/<owner hex>/<repo>.git;
// the bridge's own files sit next to them in dot-directories (.hooks, .home,
// .tmp), which can never collide with an owner directory (64 hex digits).
//
// # One gate in front of every route
//
// ServeHTTP parses the path, authenticates, computes an [Access] level and
// compares it with what the service needs, in that order, before it looks at
// the disk. A caller without access therefore gets the same 404 whether or
// not the repository exists; an anonymous caller gets 401 instead so git
// asks its credential helper; a reader who tries to push gets 403 (they may
// already know the repository exists).
//
// # Tokens
//
// The NIP-98 u tag must equal PublicURL + "/git/<owner>/<repo>.git" with the
// owner spelt exactly as in the request path (npub or hex): the credential
// helper signs the URL git was given, so both spellings work and neither is
// rewritten. The method tag is not checked and there is no replay cache,
// because git fetches one credential and reuses it for the GET of info/refs
// and the POST that follows; u and the ±60 s window bound a token instead.
//
// # Running git
//
// git runs with a minimal environment (PATH, a HOME of our own,
// GIT_CONFIG_NOSYSTEM), a timeout, SIGTERM on cancellation (git then removes
// its lock files), and a cap on concurrent processes. Policy lives in Go:
// the pre-receive and post-receive hooks are two-line shell scripts that
// exec the toolbus binary, which calls back into the Bridge over loopback
// HTTP with a per-push random token taken from its environment.
//
// # After a push
//
// Once receive-pack has exited, a push that changed refs publishes the
// relay-signed kind-30618 state (Options.Publish) and then calls
// Options.OnPush, before the HTTP response ends. The relay process uses
// OnPush to post [Push.ChannelMessage] into the channel the announcement
// binds (its "h" tag); the bridge itself knows nothing of channels.
package gitbridge
