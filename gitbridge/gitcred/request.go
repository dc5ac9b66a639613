package gitcred

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// maxInput caps what is read from git: a description is a handful of short
// lines, and git itself limits a line to 64 KiB.
const maxInput = 1 << 20

// request is the part of git's credential description the helper uses.
type request struct {
	protocol, host, path string
	// authtype is set when git announced capability[]=authtype, i.e. it
	// can send a pre-encoded "Authorization: <authtype> <credential>".
	authtype bool
}

// readRequest parses "key=value" lines up to an empty line or EOF. Unknown
// keys are ignored, as the protocol requires.
func readRequest(r io.Reader) (*request, error) {
	req := &request{}
	sc := bufio.NewScanner(io.LimitReader(r, maxInput))
	sc.Buffer(make([]byte, 0, 4096), 128<<10)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, errors.New("malformed input from git")
		}
		switch key {
		case "protocol":
			req.protocol = val
		case "host":
			req.host = val
		case "path":
			req.path = val
		case "capability[]":
			req.authtype = req.authtype || val == "authtype"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading input from git: %w", err)
	}
	return req, nil
}

// repoURL is the URL the token must name: the repository root, so that one
// token covers info/refs and the service POST below it.
func (r *request) repoURL() (string, error) {
	if r.protocol != "http" && r.protocol != "https" {
		return "", fmt.Errorf("only http and https remotes are supported (got protocol %q)", r.protocol)
	}
	if r.host == "" {
		return "", errors.New("git did not send the host")
	}
	if r.path == "" {
		return "", errors.New("git did not send the repository path, which the token must name; " +
			"run: git config --global credential.useHttpPath true")
	}
	raw := r.protocol + "://" + r.host + "/" + repoRoot(r.path)
	u, err := url.Parse(raw)
	if err != nil || u.Host != r.host || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("cannot build a URL from host %q and path %q", r.host, r.path)
	}
	return raw, nil
}

// repoRoot trims path after its first segment ending in ".git", so a
// helper asked about ".../repo.git/info/refs" still signs the root.
func repoRoot(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if strings.HasSuffix(s, ".git") {
			return strings.Join(segs[:i+1], "/")
		}
	}
	return strings.Join(segs, "/")
}
