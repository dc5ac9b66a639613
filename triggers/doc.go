// Package triggers runs tools on bus workers when events happen — a push
// to a repository, a message mentioning a worker — and reports the outcome
// in a channel. `toolbus triggers --config FILE` runs it as a process of
// its own, with its own key; triggers.example.toml documents every key.
//
// # Configuration
//
// Top level: relay, key_file, state_dir (required), concurrency (4),
// retention ("168h"), and up to 16 [[trigger]] entries, each with:
//
//   - name; [trigger.filter] with kinds (required), authors, h, p, a, d
//     (all given must match; authors and p take npub, hex, "$relay",
//     "$self", "$worker"), and for kind 30618 refs (patterns on the
//     changed refs, `*` matching any characters as in git refspecs). A 30618 filter without authors takes the relay's only.
//   - worker (npub or hex) or worker_name (the name tag of a kind-11316
//     announcement, newest first; resolved on first use, or at start when
//     the filter names "$worker"). Prefer worker: any member can announce
//     a name.
//   - tool, and arguments (a table whose strings are templates) or
//     arguments_json (a template yielding a JSON object); allowed_tools
//     bounds a templated tool name.
//   - reply: "thread" (the event's thread in its channel), "channel:<id>",
//     or "repo-channel" (the h tag of the pushed repository's 30617).
//   - timeout ("10m"), max_attempts (5), since (how far back a trigger's
//     first run reaches; default: nothing before it), plaintext, tail_lines
//     (20), [trigger.message] ok/fail headline templates.
//
// Templates are text/template with missingkey=error and see [Data]:
// .Event, .Tag "x", .Tags "x", .Repo (a 30618: .Name, .CloneURL, .Ref,
// .Branch, .Commit, .Short, .HeadRef, .Refs, .Changed), .Mention (.Text,
// .Tool, .Rest: the message after the worker's npub), .Worker. Functions:
// shq (POSIX shell quoting — use it for anything put into a command),
// json, trim, short, npub.
//
// A 30618 lists every ref, not the pushed ones, so the runner compares it
// with the previous state it saw of the repository (kept in the journal);
// .Repo.Ref is HEAD's branch if it changed, else the first changed branch,
// else the first changed ref. The relay keeps only the latest state of a
// repository, so a push made while the runner was down is seen only if it
// is still the latest; all of its changes then count.
//
// # Exactly once
//
// The journal (state_dir/journal.jsonl, fsynced appends, rewritten
// atomically when it grows; state_dir/lock keeps a second runner out) holds
// one entry per (trigger, event id), moving through:
//
//	queued   the event matched; it is kept, so a replaced 30618 is not lost
//	calling  the request is signed and kept whole (write-ahead), not yet sent
//	sent     the relay accepted the request
//	posting  the outcome is known; the signed messages are kept
//	done     only the id remains, until retention
//
// An event already in the journal is never queued again. The call path is
// the bus client's, split so that the request is journaled before it is
// published. After a restart:
//
//   - queued: handled normally.
//   - calling: the very same request event is sent again. The relay and
//     the worker drop a repeated event id, so this cannot run the tool
//     twice — but only while they remember it, so a request older than 5
//     minutes is not sent again (the runner just waits for its result).
//   - sent: never sent again. The reply subscription reaches back to the
//     oldest call still waiting (since), so the relay's mailbox replays a
//     result that arrived while the runner was down (within
//     tool_bus.mailbox_seconds, 120 s by default). With no result by the
//     call's deadline, the message says the result was lost and the call
//     was not run again.
//   - posting: the same signed messages are published again (idempotent).
//
// Stopping the runner (SIGTERM, a kill) at any point is therefore safe: a
// call under way is not cancelled (its result is wanted), and nothing runs
// twice. Only when the deadline passes while running does the runner send
// the worker notifications/cancelled.
//
// # Order, retries, concurrency
//
// Each trigger handles its events one at a time: entries resumed from the
// journal first, then by created_at, then id (the stored backlog is read
// completely before any of it runs). Triggers run in parallel up to
// concurrency. Sending a call is retried with backoff (1 s doubling to
// 1 min) up to max_attempts while the relay is unreachable, always with
// the same request; a call the worker refused unrun (rate_limited) is
// made again. Messages are posted with retries until the relay answers.
//
// # Output
//
// Per event, two events signed by the runner's key in the channel (h):
//
//   - kind 30078 (NIP-78), d = "toolbus-trigger/<trigger>/<event id>":
//     the full result as JSON (trigger, event, worker, tool, arguments,
//     request id, ok, problem, result, times).
//   - kind 9: the headline ("tests failed on main (1a2b3c4): exit 2"), the
//     last lines of stdout and stderr (shell-like results: exit_code,
//     stdout, stderr, timed_out) or of the text output, and a
//     nostr:naddr link to the record. Tags: h; the triggering event as
//     ["e", id, "", "mention"] or, for reply = "thread", NIP-10 root/reply
//     markers plus ["p", author]; ["e", record id, "", "mention"] and
//     ["a", record address]; for a push ["a", "30617:<owner>:<repo>"].
//
// A tool result is a failure when isError is set or, for shell-like
// results, the exit code is not 0 or the command timed out. A trigger
// that has nowhere to post (reply = "thread" for an event outside a
// channel, a repository bound to no channel) does not run the tool and
// logs an error. The runner never reacts to its own events.
//
// # Using it from Go
//
//	cfg, err := triggers.Load("triggers.toml") // or Parse, or build a Config
//	r, err := triggers.New(cfg, key, &triggers.Options{Logger: log})
//	go r.Run(ctx) // until ctx ends; <-r.Ready() once subscribed
package triggers
