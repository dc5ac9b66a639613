package relay

import "testing"

func TestParseSearch(t *testing.T) {
	for in, want := range map[string]searchQuery{
		"deploy":                      {words: "deploy"},
		"deploy offset:20":            {words: "deploy", offset: 20},
		"OFFSET:3 deploy failed":      {words: "deploy failed", offset: 3},
		"deploy offset:-4":            {words: "deploy"},
		"deploy offset:x":             {words: "deploy"},
		"deploy offset:999999":        {words: "deploy", offset: maxSearchOffset},
		"include:spam deploy nsfw:no": {words: "deploy"},
		"error: disk full":            {words: "error: disk full"},
		"see https://x.org/a":         {words: "see https://x.org/a"},
		"offset:5":                    {offset: 5},
	} {
		if got := parseSearch(in); got != want {
			t.Errorf("parseSearch(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// Live matching agrees with the index: every word must occur, extensions
// are not words, and a search of extensions alone matches nothing.
func TestMatchesSearch(t *testing.T) {
	for _, c := range []struct {
		query, content string
		want           bool
	}{
		{"deploy", "Deploy failed", true},
		{"deploy failed", "the deploy has failed", true},
		{"deploy failed", "deploy ok", false},
		{"deploy offset:20", "deploy ok", true},
		{"offset:5", "anything at all", false},
		{"include:spam", "anything at all", false},
	} {
		if got := matchesSearch(c.query, c.content); got != c.want {
			t.Errorf("matchesSearch(%q, %q) = %v, want %v", c.query, c.content, got, c.want)
		}
	}
}
