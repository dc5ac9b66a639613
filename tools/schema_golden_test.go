package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var updateSchemas = flag.Bool("update-schemas", false, "rewrite spec/schemas from the Go types")

// The tools' JSON schemas are a public contract: callers on the bus code
// against spec/schemas. This test fails when the Go types drift from the
// committed files; run `go test ./tools -run Schemas -update-schemas` and
// review the diff to change the contract on purpose.
func TestSchemasMatchSpec(t *testing.T) {
	tl, err := New(Options{Workdir: t.TempDir(), SessionDir: t.TempDir(), Self: os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := tl.Server.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "spec", "schemas")
	want := map[string]bool{"shell": true, "read_file": true, "str_replace": true, "view_image": true,
		"todo": true, "_Stop": true, "_PostCompact": true}
	for _, tool := range res.Tools {
		delete(want, tool.Name)
		// Descriptions are left out: the shell's lists what is on PATH.
		got, _ := json.MarshalIndent(map[string]any{"name": tool.Name, "inputSchema": tool.InputSchema,
			"outputSchema": tool.OutputSchema}, "", "  ")
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".json")
		if *updateSchemas {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update-schemas to create it)", tool.Name, err)
		}
		if string(committed) != string(got) {
			t.Errorf("%s: schema drifted from %s:\n%s\n(run with -update-schemas and review the diff)", tool.Name, path, got)
		}
	}
	if len(want) != 0 {
		t.Errorf("tools missing: %v", want)
	}
}
