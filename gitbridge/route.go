package gitbridge

import (
	"net/http"
	"strings"

	"toolbus/signer"
)

// Git services, as named in URLs and on the git command line.
const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

// route is a parsed git request.
type route struct {
	ownerSeg  string // the owner as spelt in the URL (npub or hex)
	owner     string // the owner as lower-case hex
	name      string // repository name without ".git"
	service   string // uploadPack or receivePack
	advertise bool   // GET info/refs rather than the POST of the service
}

// push reports whether the request is part of a push.
func (rt route) push() bool { return rt.service == receivePack }

// rootPath is the repository root path as the client addressed it.
func (rt route) rootPath() string {
	return "/git/" + rt.ownerSeg + "/" + rt.name + ".git"
}

// parseRoute recognises the three smart-HTTP endpoints and nothing else:
// dumb HTTP (plain file GETs) is not served. Any percent-encoding in the path
// is refused outright, so "%2e%2e", "%2f" and encoded control characters
// never reach the name checks in decoded form.
func parseRoute(r *http.Request) (route, bool) {
	if strings.Contains(r.URL.EscapedPath(), "%") {
		return route{}, false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/git/")
	if !ok {
		return route{}, false
	}
	segs := strings.Split(rest, "/")
	if len(segs) < 3 {
		return route{}, false
	}
	rt, ok := parseRepo(segs[0], segs[1])
	if !ok {
		return route{}, false
	}
	return withEndpoint(rt, r, strings.Join(segs[2:], "/"))
}

// parseRepo checks the owner and repository segments.
func parseRepo(ownerSeg, repoSeg string) (route, bool) {
	owner, err := signer.ParsePubKey(ownerSeg)
	// ParsePubKey trims spaces; the segment must be the key and nothing else.
	if err != nil || strings.TrimSpace(ownerSeg) != ownerSeg {
		return route{}, false
	}
	name, ok := strings.CutSuffix(repoSeg, ".git")
	if !ok || !ValidRepoName(name) {
		return route{}, false
	}
	return route{ownerSeg: ownerSeg, owner: owner, name: name}, true
}

// withEndpoint fills in the service from the path below the repository.
func withEndpoint(rt route, r *http.Request, tail string) (route, bool) {
	switch {
	case tail == "info/refs" && r.Method == http.MethodGet:
		rt.service, rt.advertise = r.URL.Query().Get("service"), true
		if rt.service == uploadPack || rt.service == receivePack {
			return rt, true
		}
	case (tail == uploadPack || tail == receivePack) && r.Method == http.MethodPost:
		rt.service = tail
		return rt, true
	}
	return route{}, false
}

// MaxRepoNameLen is the longest repository name accepted.
const MaxRepoNameLen = 100

// ValidRepoName reports whether name (without ".git") may name a
// repository: 1 to MaxRepoNameLen characters from [A-Za-z0-9._-], starting
// with a letter or digit (so never an option to git, nor a dot-file), with
// no ".." anywhere and no ".git" suffix (which would make "x.git.git"). This
// excludes separators, absolute paths, "." and "..", control characters and
// every encoding trick by construction.
func ValidRepoName(name string) bool {
	if name == "" || len(name) > MaxRepoNameLen || !isAlnum(name[0]) {
		return false
	}
	if strings.Contains(name, "..") || strings.HasSuffix(strings.ToLower(name), ".git") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
