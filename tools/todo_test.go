package tools

import (
	"fmt"
	"strings"
	"testing"
)

// items builds todo arguments from "text" (open) and "+text" (done).
func items(list ...string) map[string]any {
	out := []map[string]any{}
	for _, s := range list {
		text, done := strings.CutPrefix(s, "+")
		out = append(out, map[string]any{"text": text, "done": done})
	}
	return map[string]any{"items": out}
}

func TestTodoWholeList(t *testing.T) {
	cs := connect(t, newTestEnv(t, true), registerTodo)
	got := wantOK(t, call(t, cs, "todo", items("write tests", "+read spec")))
	if got != "Todo list (1 of 2 done):\n- [ ] write tests\n- [x] read spec\n" {
		t.Fatalf("reply %q", got)
	}
	// Each call replaces the list: the old items are not merged in.
	got = wantOK(t, call(t, cs, "todo", items("+write tests", "ship")))
	if got != "Todo list (1 of 2 done):\n- [x] write tests\n- [ ] ship\n" {
		t.Fatalf("replacement %q", got)
	}
	if got := wantOK(t, call(t, cs, "_PostCompact", nil)); got != "Todo list (1 of 2 done):\n- [x] write tests\n- [ ] ship\n" {
		t.Fatalf("_PostCompact %q", got)
	}
}

func TestTodoWarnsWhenOpenItemDisappears(t *testing.T) {
	cs := connect(t, newTestEnv(t, true), registerTodo)
	wantOK(t, call(t, cs, "todo", items("a", "b", "+c")))
	got := wantOK(t, call(t, cs, "todo", items("a")))
	if !strings.Contains(got, "Warning: 1 open item(s) disappeared without being marked done:\n- b\n") {
		t.Fatalf("no warning for b: %q", got)
	}
	if strings.Contains(got, "- c") {
		t.Fatalf("a done item that went away is not a warning: %q", got)
	}
	if got := wantOK(t, call(t, cs, "todo", items("+a"))); strings.Contains(got, "Warning") {
		t.Fatalf("marking done is not disappearing: %q", got)
	}
	if got := wantOK(t, call(t, cs, "todo", items())); strings.Contains(got, "Warning") || got != "The todo list is empty.\n" {
		t.Fatalf("clearing a finished list: %q", got)
	}
}

func TestTodoLimits(t *testing.T) {
	cs := connect(t, newTestEnv(t, true), registerTodo)
	var fifty []string
	for i := range 51 {
		fifty = append(fifty, fmt.Sprintf("item %d", i))
	}
	wantOK(t, call(t, cs, "todo", items(fifty[:50]...)))
	wantErr(t, call(t, cs, "todo", items(fifty...)), codeInvalidParams, "51 items", "limit is 50")
	wantOK(t, call(t, cs, "todo", items(strings.Repeat("é", 200))))
	wantErr(t, call(t, cs, "todo", items(strings.Repeat("é", 201))), codeInvalidParams, "201 characters", "limit is 200")
	wantErr(t, call(t, cs, "todo", items("ok", " ")), codeInvalidParams, "item 2 has no text")
	for _, r := range []rune{0, '\t', '\n', 0x1b, 0x7f, 0x85, 0x9f, 0x200b, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e,
		0x2060, 0x2064, 0x2066, 0x2069, 0xfeff} {
		res := call(t, cs, "todo", items("fine", "bad"+string(r)+"item"))
		wantErr(t, res, codeInvalidParams, fmt.Sprintf("item 2 contains U+%04X", r))
	}
	wantOK(t, call(t, cs, "todo", items("ünïcödé ✓ 日本語 emoji 🎉", "U+2065 is unassigned: \u2065")))
	// Refused lists leave the stored one alone.
	if got := wantOK(t, call(t, cs, "_PostCompact", nil)); !strings.Contains(got, "日本語") {
		t.Fatalf("list after refusals: %q", got)
	}
}

func TestTodoStopHook(t *testing.T) {
	cs := connect(t, newTestEnv(t, true), registerTodo)
	if got := wantOK(t, call(t, cs, "_Stop", nil)); got != "" {
		t.Fatalf("_Stop with no list: %q", got)
	}
	wantOK(t, call(t, cs, "todo", items("+done", "open")))
	got := wantOK(t, call(t, cs, "_Stop", map[string]any{}))
	if got != "You have open todo items. Keep working.\n\nTodo list (1 of 2 done):\n- [x] done\n- [ ] open\n" {
		t.Fatalf("_Stop with open items: %q", got)
	}
	wantOK(t, call(t, cs, "todo", items("+done", "+open")))
	if got := wantOK(t, call(t, cs, "_Stop", nil)); got != "" {
		t.Fatalf("_Stop when all done: %q", got)
	}
	// Each server instance has its own list.
	other := connect(t, newTestEnv(t, true), registerTodo)
	if got := wantOK(t, call(t, other, "_PostCompact", nil)); got != "The todo list is empty.\n" {
		t.Fatalf("second server sees %q", got)
	}
}
