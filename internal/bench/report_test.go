package bench

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRowJSONShape(t *testing.T) {
	rows := []Row{
		newRow(metric{name: "ingest_1", unit: "events/s", better: higher}, 900, 1000),
		newRow(metric{name: "e2e_stored_p50", unit: "ms", better: lower}, 1.23456, 0),
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not a JSON list: %v\n%s", err, buf.String())
	}
	wantKeys := []string{"baseline", "better", "name", "ratio", "toolbus", "unit"}
	for _, row := range got {
		keys := make([]string, 0, len(row))
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, wantKeys) {
			t.Fatalf("row keys %v, want %v", keys, wantKeys)
		}
	}
	if got[0]["ratio"] != 0.9 || got[0]["better"] != "higher" || got[0]["unit"] != "events/s" {
		t.Errorf("row 0 = %v", got[0])
	}
	if got[1]["ratio"] != 0.0 || got[1]["toolbus"] != 1.235 {
		t.Errorf("row 1 = %v, want ratio 0 for a zero baseline and 3 decimals", got[1])
	}
}

func TestWriteJSONEmptyIsList(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, nil); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Fatalf("WriteJSON(nil) = %q, %v", buf.String(), err)
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		row  Row
		want string
	}{
		{Row{Name: "ingest_1", Unit: "events/s", Toolbus: 1200}, "≥1000 events/s ok"},
		{Row{Name: "ingest_16", Unit: "events/s", Toolbus: 8000}, "≥10000 events/s MISS"},
		{Row{Name: "e2e_stored_p50", Unit: "ms", Toolbus: 0.5}, "≤1 ms ok"},
		{Row{Name: "e2e_stored_p99", Ratio: 1.2}, "≤1.10× MISS"},
		{Row{Name: "rss_idle_mb", Unit: "MB", Toolbus: 20}, "≤50 MB ok"},
		{Row{Name: "bus_rtt_p50", Ratio: 1.25}, "≤1.30× ok"},
		{Row{Name: "bus_calls_16", Unit: "calls/s", Toolbus: 2000}, "≥2500 calls/s MISS"},
		{Row{Name: "bus_rtt_wrapped_p50", Ratio: 3}, "-"},
		{Row{Name: "git_clone", Ratio: 1.3}, "≤1.20× MISS"},
		{Row{Name: "something_new"}, "-"},
	}
	for _, tt := range tests {
		if got := verdict(tt.row); got != tt.want {
			t.Errorf("verdict(%s) = %q, want %q", tt.row.Name, got, tt.want)
		}
	}
}

func TestTableListsEveryRow(t *testing.T) {
	rep := &Report{Machine: Machine{CPU: "Test CPU", Cores: 2}, Quick: true,
		Rows:     []Row{{Name: "ingest_1", Unit: "events/s", Toolbus: 1, Baseline: 1, Ratio: 1, Better: higher}},
		Failures: []string{"toolbus: boom"}}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Test CPU, 2 cores", "(quick)", "ingest_1", "khatru", "FAIL: toolbus: boom"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}
