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
