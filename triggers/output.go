package triggers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"toolbus/signer"
)

// Kinds the runner publishes.
const (
	// KindChatMessage is the channel message with the summary (NIP-29/C7).
	KindChatMessage = 9
	// KindResultRecord holds the full result (NIP-78 application data),
	// addressable by "toolbus-trigger/<trigger>/<event id>".
	KindResultRecord = 30078
)

// maxRecordResult bounds the result kept in a record, well inside the
// relay's default content and message limits.
const maxRecordResult = 120_000

// resultDoc is the content of a result record.
type resultDoc struct {
	Trigger    string              `json:"trigger"`
	Event      string              `json:"event"`
	EventKind  int                 `json:"event_kind"`
	Worker     string              `json:"worker,omitempty"`
	Tool       string              `json:"tool,omitempty"`
	Arguments  json.RawMessage     `json:"arguments,omitempty"`
	Request    string              `json:"request,omitempty"`
	OK         bool                `json:"ok"`
	Problem    string              `json:"problem,omitempty"`
	Result     *mcp.CallToolResult `json:"result,omitempty"`
	Truncated  string              `json:"result_truncated,omitempty"`
	StartedAt  int64               `json:"started_at,omitempty"`
	FinishedAt int64               `json:"finished_at"`
}

// compose builds and signs the result record and the summary message. They
// are journaled before publishing, so a restart sends the very same events.
func (r *Runner) compose(ctx context.Context, t *trigger, e *entry, d *Data, o *outcome) ([]nostr.Event, error) {
	dTag := "toolbus-trigger/" + t.name + "/" + e.EventID
	rec := nostr.Event{Kind: KindResultRecord, CreatedAt: nostr.Now(), Content: resultContent(t, e, o),
		Tags: nostr.Tags{{"d", dTag}, {"h", e.Channel}, {"e", e.EventID}, {"alt", "toolbus trigger result"}}}
	if err := r.key.SignEvent(ctx, &rec); err != nil {
		return nil, err
	}
	naddr, _ := nip19.EncodeEntity(r.self, KindResultRecord, dTag, nil)
	msg := nostr.Event{Kind: KindChatMessage, CreatedAt: nostr.Now(), Content: summary(t, d, o, naddr),
		Tags: messageTags(t, e, &rec, fmt.Sprintf("%d:%s:%s", KindResultRecord, r.self, dTag))}
	if err := r.key.SignEvent(ctx, &msg); err != nil {
		return nil, err
	}
	return []nostr.Event{rec, msg}, nil
}

func resultContent(t *trigger, e *entry, o *outcome) string {
	doc := resultDoc{Trigger: t.name, Event: e.EventID, EventKind: e.Event.Kind, OK: o.ok(),
		Problem: o.problem, Result: o.result, FinishedAt: o.finished.Unix()}
	if c := o.call; c != nil {
		doc.Worker, doc.Tool, doc.Arguments, doc.Request, doc.StartedAt = c.Worker, c.Tool, c.Args, c.Request, c.Started
	}
	b, _ := json.Marshal(doc)
	if len(b) > maxRecordResult {
		doc.Result = nil
		doc.Truncated = fmt.Sprintf("the result was %d bytes, too large to keep here", len(b))
		b, _ = json.Marshal(doc)
	}
	return string(b)
}

// messageTags put the message in the channel (in the event's thread for
// reply = "thread") and reference the triggering event, the result record
// and, for a push, the repository.
func messageTags(t *trigger, e *entry, rec *nostr.Event, recAddr string) nostr.Tags {
	tags := nostr.Tags{{"h", e.Channel}}
	if t.reply.thread {
		root := e.EventID
		for _, tag := range e.Event.Tags {
			if len(tag) >= 4 && tag[0] == "e" && tag[3] == "root" {
				root = tag[1]
			}
		}
		tags = append(tags, nostr.Tag{"e", root, "", "root"})
		if root != e.EventID {
			tags = append(tags, nostr.Tag{"e", e.EventID, "", "reply"})
		}
		tags = append(tags, nostr.Tag{"p", e.Event.PubKey})
	} else {
		tags = append(tags, nostr.Tag{"e", e.EventID, "", "mention"})
	}
	tags = append(tags, nostr.Tag{"e", rec.ID, "", "mention"}, nostr.Tag{"a", recAddr})
	if e.Repo != nil {
		tags = append(tags, nostr.Tag{"a", e.Repo.Address()})
	}
	return tags
}

// summary is the message text: headline, reason, output tails, footer.
func summary(t *trigger, d *Data, o *outcome, naddr string) string {
	var b strings.Builder
	b.WriteString(headline(t, d, o))
	if reason := o.reason(); reason != "" {
		b.WriteString(": " + reason)
	}
	b.WriteString("\n")
	for _, bl := range o.details(t.cfg.TailLines) {
		if strings.TrimSpace(bl.text) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n%s (last lines):\n```\n%s\n```\n", bl.title, strings.ReplaceAll(bl.text, "```", "'''"))
	}
	b.WriteString("\ntrigger " + t.name)
	if c := o.call; c != nil {
		npub := signer.EncodeNPub(c.Worker)
		fmt.Fprintf(&b, " · %s on %s…", c.Tool, npub[:min(len(npub), 16)])
		if !o.finished.IsZero() {
			fmt.Fprintf(&b, " · %s", o.finished.Sub(time.Unix(c.Started, 0)).Round(time.Second))
		}
	}
	b.WriteString(" · full result: nostr:" + naddr)
	return b.String()
}

// headline renders message.ok or message.fail, or a default.
func headline(t *trigger, d *Data, o *outcome) string {
	tp, verb := t.okMsg, "succeeded"
	if !o.ok() {
		tp, verb = t.failMsg, "failed"
	}
	if s, err := execute(tp, d); err == nil && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s)
	}
	tool := "the call"
	if o.call != nil {
		tool = o.call.Tool
	}
	if d.Repo != nil {
		if verb == "succeeded" {
			verb = "passed"
		}
		return fmt.Sprintf("%s: %s %s on %s (%s)", t.name, tool, verb, d.Repo.Branch, d.Repo.Short())
	}
	return fmt.Sprintf("%s: %s %s", t.name, tool, verb)
}
