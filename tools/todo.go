package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// maxTodoItems and maxTodoChars keep the list a plan, not a dump: it
	// is repeated back on every call and after every compaction.
	maxTodoItems = 50
	maxTodoChars = 200
)

// todoItem is one entry of the list.
type todoItem struct {
	Text string `json:"text" jsonschema:"what to do, at most 200 characters"`
	Done bool   `json:"done,omitempty" jsonschema:"true once it is finished"`
}

// todoIn is todo's arguments.
type todoIn struct {
	Items []todoItem `json:"items" jsonschema:"the whole list in order (at most 50 items); it replaces the previous list"`
}

// todoList is the list of one server instance, shared by todo, _Stop and
// _PostCompact.
type todoList struct {
	mu    sync.Mutex
	items []todoItem
}

// registerTodo adds todo and its two hooks, _Stop and _PostCompact, which
// share one list per server.
func registerTodo(s *mcp.Server, _ *Env) {
	l := &todoList{}
	mcp.AddTool(s, &mcp.Tool{Name: "todo", Description: "Keep the task's todo list. Send the whole list " +
		"every time: it replaces the previous one. At most 50 items of at most 200 characters; control, " +
		"zero-width and bidi characters are refused. The reply shows the list and warns when an " +
		"unfinished item disappeared without being marked done."},
		func(_ context.Context, _ *mcp.CallToolRequest, in todoIn) (*mcp.CallToolResult, any, error) {
			return l.set(in.Items), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "_Stop", Description: "Stop hook: while todo items are open, says " +
		"to keep working and shows the list; empty when all are done."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(l.stop()), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "_PostCompact", Description: "Post-compaction hook: shows the todo " +
		"list again, since compaction may have dropped it from the context."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			return textResult(renderTodo(l.items)), nil, nil
		})
}

// set validates and stores a new list, and warns about open items of the
// old one that are gone: dropping unfinished work should be deliberate.
func (l *todoList) set(items []todoItem) *mcp.CallToolResult {
	if res := checkTodo(items); res != nil {
		return res
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := lostItems(l.items, items)
	l.items = append([]todoItem(nil), items...)
	text := renderTodo(l.items)
	if len(lost) > 0 {
		text += fmt.Sprintf("\nWarning: %d open item(s) disappeared without being marked done:\n- %s\n"+
			"Add them back, or send them with done=true if they are finished.\n", len(lost), strings.Join(lost, "\n- "))
	}
	return textResult(text)
}

// stop is _Stop's reply.
func (l *todoList) stop() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, it := range l.items {
		if !it.Done {
			return "You have open todo items. Keep working.\n\n" + renderTodo(l.items)
		}
	}
	return ""
}

// lostItems lists the open items of prev whose text is not in next.
func lostItems(prev, next []todoItem) []string {
	kept := make(map[string]bool, len(next))
	for _, it := range next {
		kept[it.Text] = true
	}
	var lost []string
	for _, it := range prev {
		if !it.Done && !kept[it.Text] {
			lost = append(lost, it.Text)
		}
	}
	return lost
}

// renderTodo shows the list as a checklist.
func renderTodo(items []todoItem) string {
	if len(items) == 0 {
		return "The todo list is empty.\n"
	}
	done := 0
	var b strings.Builder
	for _, it := range items {
		mark := "[ ]"
		if it.Done {
			mark, done = "[x]", done+1
		}
		fmt.Fprintf(&b, "- %s %s\n", mark, it.Text)
	}
	return fmt.Sprintf("Todo list (%d of %d done):\n", done, len(items)) + b.String()
}

// checkTodo enforces the list's limits.
func checkTodo(items []todoItem) *mcp.CallToolResult {
	if len(items) > maxTodoItems {
		return invalidf("the list has %d items; the limit is %d", len(items), maxTodoItems)
	}
	for i, it := range items {
		n := i + 1
		if strings.TrimSpace(it.Text) == "" {
			return invalidf("item %d has no text", n)
		}
		if c := utf8.RuneCountInString(it.Text); c > maxTodoChars {
			return invalidf("item %d is %d characters long; the limit is %d", n, c, maxTodoChars)
		}
		for _, r := range it.Text {
			if kind := hiddenRune(r); kind != "" {
				return invalidf("item %d contains U+%04X, a %s; control, zero-width and bidi characters are not allowed", n, r, kind)
			}
		}
	}
	return nil
}

// hiddenRune names the kind of r when it is a character that hides or
// reorders text (so an item could read differently from what it says), or
// returns "".
func hiddenRune(r rune) string {
	switch {
	case unicode.Is(unicode.Cc, r): // C0 (tab and newline too), DEL, C1
		return "control character"
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
		return "zero-width character"
	case r == 0x200E || r == 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return "bidirectional control"
	}
	return ""
}
