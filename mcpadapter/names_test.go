package mcpadapter

import "testing"

func TestExposedNamesDeterministic(t *testing.T) {
	a := workerTools{pubkey: "aaaaaa" + "0000000000", name: "laptop", tools: []string{"shell", "read.file"}}
	b := workerTools{pubkey: "bbbbbb" + "0000000000", name: "laptop", tools: []string{"shell"}}
	c := workerTools{pubkey: "cccccc" + "0000000000", name: "ci box!", tools: []string{"read_file", "read.file"}}
	got1 := exposedNames([]workerTools{a, b, c})
	got2 := exposedNames([]workerTools{c, b, a})
	want := map[string]binding{
		"laptop-aaaaaa__read_file": {a.pubkey, "read.file"},
		"laptop-aaaaaa__shell":     {a.pubkey, "shell"},
		"laptop-bbbbbb__shell":     {b.pubkey, "shell"},
		"ci_box__read_file":        {c.pubkey, "read.file"},
		"ci_box__read_file_2":      {c.pubkey, "read_file"},
	}
	for _, got := range []map[string]binding{got1, got2} {
		if len(got) != len(want) {
			t.Fatalf("got %v", got)
		}
		for n, b := range want {
			if got[n] != b {
				t.Fatalf("%s: got %v, want %v (all: %v)", n, got[n], b, got)
			}
		}
	}
	long := workerTools{pubkey: "dddddd0000000000", name: "a-very-long-worker-name-that-goes-on-and-on-and-on", tools: []string{"a_rather_long_tool_name_too"}}
	for n := range exposedNames([]workerTools{long}) {
		if len(n) > maxToolName {
			t.Fatalf("%q longer than %d", n, maxToolName)
		}
	}
}
