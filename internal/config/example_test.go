package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const examplePath = "../../config.example.toml"

func equalConfig(a, b Config) bool { return reflect.DeepEqual(a, b) }

func TestExampleLoadsAsDefault(t *testing.T) {
	c, err := Load(examplePath)
	if err != nil {
		t.Fatalf("Load(example): %v", err)
	}
	if !equalConfig(c, Default()) {
		t.Errorf("example differs from Default():\n got %+v\nwant %+v", c, Default())
	}
}

// TestExampleDocumentsEveryKey fails when a field is added to Config
// without a line in the example, set or (for lists) commented out.
func TestExampleDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, key := range tomlKeys(reflect.TypeFor[Config](), "") {
		section, leaf := splitLast(key)
		if section != "" && !strings.Contains(text, "\n["+section+"]\n") {
			t.Errorf("example has no [%s] section", section)
		}
		re := regexp.MustCompile(`(?m)^(# )?` + regexp.QuoteMeta(leaf) + ` = `)
		if !re.MatchString(text) {
			t.Errorf("example does not show %s", key)
		}
	}
}

// tomlKeys lists the dotted TOML keys of every leaf field of t.
func tomlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for f := range t.Fields() {
		name := prefix + f.Tag.Get("toml")
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(f.Type, name+".")...)
			continue
		}
		keys = append(keys, name)
	}
	return keys
}

func splitLast(key string) (section, leaf string) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", key
	}
	return key[:i], key[i+1:]
}
