// Package mcpadapter connects MCP and the tool bus in both directions.
//
// The adapter (New) is an MCP server for a local agent — Claude Code,
// Cursor, Codex, any MCP client — acting with the user's key: it discovers
// the workers the user may call from their announcements on the relay
// (kinds 11316/11317, signed by workspace members, or a configured list),
// exposes each worker tool as `<worker>__<tool>`, and forwards calls over
// the bus, gift-wrapped by default, with progress, cancellation and
// deadlines. Every failure reaches the agent as a tool result with a
// classified error, never as a bare protocol error.
//
// The bridge (Bridge) goes the other way: it puts an existing MCP server
// (a child process over stdio, or a streamable HTTP endpoint) on the bus
// under the bridge's key.
package mcpadapter
