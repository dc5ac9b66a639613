package gitbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Hooks the bridge installs. Both exec `<HookBinary> git hook <name>`.
var hookNames = []string{"pre-receive", "post-receive"}

// maxHookUpdates caps the ref updates of one push the hook forwards.
const maxHookUpdates = 10000

// writeHookScripts writes the hook scripts: two lines of shell that hand
// over to toolbus, so no policy lives in shell. The binary path is single-
// quoted, which needs no escaping except for single quotes themselves.
func writeHookScripts(dir, bin string) error {
	quoted := "'" + strings.ReplaceAll(bin, "'", `'\''`) + "'"
	for _, name := range hookNames {
		script := fmt.Sprintf("#!/bin/sh\nexec %s git hook %s\n", quoted, name)
		if err := writeFileAtomic(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
			return fmt.Errorf("gitbridge: write hook: %w", err)
		}
	}
	return nil
}

// writeFileAtomic replaces path, so a git starting a hook never runs a
// half-written script.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// RunHook is the body of `toolbus git hook <name>`, which git runs as the
// pre-receive and post-receive hook of every repository the bridge serves.
// It reads git's "<old> <new> <ref>" lines from stdin, sends them to the
// Bridge that started this push (its URL and token are in env), prints the
// Bridge's message to stderr (git shows it to the pusher as "remote: ...")
// and returns the exit code: non-zero refuses the push. It fails closed: if
// the Bridge cannot be reached, a pre-receive hook refuses. stdout is not
// written; env is the hook's environment (os.Environ() in a real hook).
func RunHook(name string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	resp, err := callHook(name, stdin, env)
	if err != nil {
		fmt.Fprintf(stderr, "toolbus: %s: %v\n", name, err)
		return 1
	}
	if resp.Message != "" {
		fmt.Fprintln(stderr, strings.TrimRight(resp.Message, "\n"))
	}
	if !resp.OK {
		return 1
	}
	return 0
}

func callHook(name string, stdin io.Reader, env []string) (*hookResponse, error) {
	vars := envMap(env)
	target, token := vars[envHookURL], vars[envHookToken]
	if err := checkHookURL(target); err != nil || token == "" {
		return nil, errors.New("not started by the toolbus git bridge")
	}
	updates, err := readUpdates(stdin)
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(hookRequest{Hook: name, Updates: updates, Quarantine: vars["GIT_QUARANTINE_PATH"]})
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	// The bridge's own git timeout bounds the push; this only guards
	// against a bridge that stopped answering.
	res, err := (&http.Client{Timeout: 15 * time.Minute}).Do(req)
	if err != nil {
		return nil, errors.New("git bridge unreachable")
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("git bridge answered %s", res.Status)
	}
	var out hookResponse
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&out); err != nil {
		return nil, errors.New("bad answer from git bridge")
	}
	return &out, nil
}

// checkHookURL accepts only the loopback URLs the bridge hands out, so the
// token is never sent anywhere else whatever the environment says.
func checkHookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return errors.New("bad hook url")
	}
	return nil
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// readUpdates parses git's hook input, one "<old> <new> <ref>" per line.
func readUpdates(r io.Reader) ([]RefUpdate, error) {
	var ups []RefUpdate
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, errors.New("malformed hook input")
		}
		if len(ups) == maxHookUpdates {
			return nil, fmt.Errorf("too many ref updates in one push (limit %d)", maxHookUpdates)
		}
		ups = append(ups, RefUpdate{Old: f[0], New: f[1], Ref: f[2]})
	}
	return ups, sc.Err()
}
