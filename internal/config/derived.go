package config

import (
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"toolbus/signer"
)

// HTTPURL returns the relay's public URL as http:// or https:// with no
// trailing slash: the form NIP-98 `u` tags and NIP-11 fetches use.
//
// It comes from PublicURL, mapping ws:// to http:// and wss:// to https://
// and lower-casing the host. When PublicURL is empty it is "http://" +
// Listen, with an unspecified host (":7447", "0.0.0.0:7447", "[::]:7447")
// shown as "localhost", since a bind-all address is not one clients can
// dial. A server that honours TrustProxy may prefer forwarded headers in
// that case. The result assumes Validate has passed.
func (c *Config) HTTPURL() string {
	if c.PublicURL == "" {
		return "http://" + dialable(c.Listen)
	}
	u, err := url.Parse(c.PublicURL)
	if err != nil {
		return strings.TrimRight(c.PublicURL, "/")
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	u.Host = strings.ToLower(u.Host)
	return strings.TrimRight(u.String(), "/")
}

// WSURL is HTTPURL with ws:// or wss:// instead: the URL websocket clients
// dial and the NIP-42 `relay` tag carries.
func (c *Config) WSURL() string {
	h := c.HTTPURL()
	if rest, ok := strings.CutPrefix(h, "https://"); ok {
		return "wss://" + rest
	}
	if rest, ok := strings.CutPrefix(h, "http://"); ok {
		return "ws://" + rest
	}
	return h
}

// dialable replaces an empty or unspecified host in a listen address with
// "localhost", keeping the port.
func dialable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// KeyFilePath returns where the relay's own key lives: KeyFile, or
// DataDir/relay.key when KeyFile is empty.
func (c *Config) KeyFilePath() string {
	if c.KeyFile != "" {
		return c.KeyFile
	}
	return filepath.Join(c.DataDir, "relay.key")
}

// MemberKeys returns the hex public keys of everyone listed as a member or
// an admin, deduplicated, in file order. Admins are implicitly members, so
// that promoting someone never requires listing them twice. Entries that
// are not valid keys are skipped (Validate reports them). It parses on
// every call; callers on a hot path should keep the result.
func (c *Config) MemberKeys() []string {
	return hexKeys(c.Workspace.Members, c.Workspace.Admins)
}

// AdminKeys returns the hex public keys of the admins, deduplicated, in file
// order, skipping invalid entries as MemberKeys does.
func (c *Config) AdminKeys() []string {
	return hexKeys(c.Workspace.Admins)
}

// hexKeys parses every entry of the lists and drops invalid and repeated
// keys, so that an npub and its hex form count once.
func hexKeys(lists ...[]string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, list := range lists {
		for _, s := range list {
			h, err := signer.ParsePubKey(s)
			if err != nil || seen[h] {
				continue
			}
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}
