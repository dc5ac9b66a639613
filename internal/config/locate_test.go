package config

import (
	"testing"

	"github.com/BurntSushi/toml"
)

func TestLineOf(t *testing.T) {
	data := `# top comment
listen = "a" # trailing
"quoted" = 1
description = """
x = 1
"""
[info]
name = 'a # not a comment'
[ workspace ] # c
members = [
  "x = 1",
  ["nested"],
]
mode = "open"
[[arr.tbl]]
a.b = 1
`
	tests := []struct {
		key  toml.Key
		want int
	}{
		{toml.Key{"listen"}, 2},
		{toml.Key{"quoted"}, 3},
		{toml.Key{"description"}, 4},
		{toml.Key{"x"}, 0},
		{toml.Key{"info"}, 7},
		{toml.Key{"info", "name"}, 8},
		{toml.Key{"workspace"}, 9},
		{toml.Key{"workspace", "members"}, 10},
		{toml.Key{"workspace", "mode"}, 14},
		{toml.Key{"arr", "tbl", "a", "b"}, 16},
		{toml.Key{"missing"}, 0},
	}
	for _, tt := range tests {
		if got := lineOf([]byte(data), tt.key); got != tt.want {
			t.Errorf("lineOf(%s) = %d, want %d", tt.key, got, tt.want)
		}
	}
}
