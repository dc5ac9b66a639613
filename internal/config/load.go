package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Load reads the TOML file at path over Default() and validates the result.
// An empty path means "no file" and yields Default(). Errors name the file,
// the key and, where it can be found, the line.
func Load(path string) (Config, error) {
	if path == "" {
		c := Default()
		return c, c.Validate()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path)
}

// Read is Load without validation, for a command that applies flag
// overrides (Config.ApplyFlags) before calling Config.Validate itself.
// Syntax errors and unknown keys are still refused.
func Read(path string) (Config, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return decode(data, path)
}

// Parse decodes TOML data over Default() and validates the result, as Load
// does for a file. name labels error messages (usually the file name) and
// may be empty.
func Parse(data []byte, name string) (Config, error) {
	c, err := decode(data, name)
	if err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		locate(err, data, name)
		return Config{}, err
	}
	return c, nil
}

// decode applies data over Default(), refusing syntax errors, type
// mismatches and unknown keys.
func decode(data []byte, name string) (Config, error) {
	c := Default()
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return Config{}, decodeError(err, name)
	}
	if err := unknownKeys(md.Undecoded(), data, name); err != nil {
		return Config{}, err
	}
	return c, nil
}

// decodeError rewords a decoder error in the "config: FILE:LINE: ..." shape
// of every other error from this package.
func decodeError(err error, name string) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("config: %sinvalid TOML: %s", where(name, pe.Position.Line), pe.Message)
	}
	if m := typeErrorRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &KeyError{File: name, Line: line, Key: m[2], Problem: m[3]}
	}
	return fmt.Errorf("config: %s%s", where(name, 0), strings.TrimPrefix(err.Error(), "toml: "))
}

// typeErrorRE picks the line and key out of the decoder's type-mismatch
// errors, which are plain strings, so that they read like every other
// KeyError. Messages it does not match are passed through unchanged.
var typeErrorRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// unknownKeys turns keys the decoder did not use into errors. Only the
// outermost unknown key is reported: an unknown section's own keys are
// unknown too, and listing them all would bury the real mistake.
func unknownKeys(keys []toml.Key, data []byte, name string) error {
	var errs []error
	var reported []toml.Key
	for _, k := range keys {
		if underAny(k, reported) {
			continue
		}
		reported = append(reported, k)
		errs = append(errs, &KeyError{
			File:    name,
			Line:    lineOf(data, k),
			Key:     k.String(),
			Problem: "unknown key (misspelt, or not supported by this version)",
		})
	}
	return errors.Join(errs...)
}

// underAny reports whether k is one of parents or nested inside one.
func underAny(k toml.Key, parents []toml.Key) bool {
	for _, p := range parents {
		if len(p) <= len(k) && slices.Equal(k[:len(p)], p) {
			return true
		}
	}
	return false
}

// locate fills in the file and line of validation errors from data.
func locate(err error, data []byte, name string) {
	for _, ke := range keyErrors(err) {
		ke.File = name
		ke.Line = lineOf(data, splitKey(ke.Key))
	}
}

// splitKey turns a KeyError key such as "workspace.members[2]" into TOML
// key segments; the index is dropped because lists are located by their key.
func splitKey(key string) toml.Key {
	if i := strings.IndexByte(key, '['); i >= 0 {
		key = key[:i]
	}
	return strings.Split(key, ".")
}
