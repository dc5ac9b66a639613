package nip98

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

var errBadURL = errors.New("nip98: url must be absolute http or https without user info")

// normalizeURL returns the comparison form of an absolute http(s) URL; see
// the package documentation for the rules.
func normalizeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" {
		return "", errBadURL
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errBadURL
	}
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(normalizeHost(scheme, u))
	b.WriteString(trimOneSlash(u.EscapedPath()))
	if u.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(u.RawQuery)
	}
	return b.String(), nil
}

// normalizeHost lower-cases the host and drops the scheme's default port.
func normalizeHost(scheme string, u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") { // IPv6 literal keeps its brackets
		return "[" + host + "]"
	}
	return host
}

// trimOneSlash makes "/a/" equal "/a" and "" equal "/".
func trimOneSlash(p string) string {
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		return p[:len(p)-1]
	}
	if p == "" {
		return "/"
	}
	return p
}

// underRoot reports whether the request path reqPath is rootURL's path or
// lies below it. Dot segments are refused outright: after a router cleans
// them the request could address a different repository than the token.
func underRoot(rootURL, reqPath string) bool {
	u, err := url.Parse(rootURL)
	if err != nil {
		return false
	}
	for _, seg := range strings.Split(reqPath, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	root := strings.TrimSuffix(u.Path, "/")
	if root == "" {
		return strings.HasPrefix(reqPath, "/")
	}
	return reqPath == root || strings.HasPrefix(reqPath, root+"/")
}
