package gitbridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxRequestBytes = 256 << 20
	DefaultMaxGitProcesses = 16
	DefaultGitTimeout      = 10 * time.Minute
	// DefaultQueueWait is how long a request waits for a free git process
	// slot before it is answered 503.
	DefaultQueueWait = 30 * time.Second
)

// DefaultProtectedBranches is used when Options.ProtectedBranches is nil.
var DefaultProtectedBranches = []string{"main"}

// Options configures a [Bridge]. IsMember and PublicURL and DataDir are
// required; everything else has a default or is optional.
type Options struct {
	// DataDir is the relay's data_dir; repositories live under DataDir/git.
	DataDir string
	// PublicURL is the http(s) URL clients use for the relay, e.g.
	// "https://relay.example". A repository's root URL, which tokens must
	// name in u, is PublicURL + "/git/<owner>/<repo>.git".
	PublicURL string
	// IsMember reports whether pk (hex) belongs to the workspace. It must
	// return false for banned keys; in an open workspace it may return true
	// for everyone not banned. Members read every repository; pushing also
	// needs membership.
	IsMember func(pk string) bool
	// Announcement returns the owner's latest kind-30617 announcement of
	// repo (see [ParseAnnouncement]), or nil, nil when there is none. Nil
	// means no repository is ever announced.
	Announcement func(ctx context.Context, ownerHex, repo string) (*RepoAnnouncement, error)
	// Signer is the relay key that signs kind-30618 state events; required
	// when Publish is set.
	Signer signer.Signer
	// Publish stores and broadcasts a signed state event. Nil disables state
	// events.
	Publish func(ctx context.Context, ev *nostr.Event) error
	// OnPush, when set, is called after every push that changed refs (after
	// Publish), e.g. to post into the repository's channel.
	OnPush func(ctx context.Context, p Push)
	// ProtectedBranches are branch names (path.Match patterns allowed, e.g.
	// "release/*") that refuse force-pushes and deletion. Nil means
	// DefaultProtectedBranches; an empty non-nil slice protects nothing.
	ProtectedBranches []string
	// RequireSignedCommits refuses pushes that add a commit without a valid
	// signature by a workspace member. Needs VerifySignature.
	RequireSignedCommits bool
	// VerifySignature checks a commit signature (the gpgsig header's value)
	// over its payload and returns the signer's hex pubkey.
	VerifySignature func(payload, signature []byte) (pubkey string, err error)
	// Headroom, when set, reports how many bytes data_dir's filesystem can
	// take before it drops below the relay's reserve (ok false: unknown).
	// A push is refused (507 "disk is full") when there is none left, or
	// less than twice a declared request size; otherwise receive-pack runs
	// with receive.maxInputSize at half of it (pack plus index), because
	// git sends a large pack chunked, without saying its size. Nil skips
	// all of this.
	Headroom func() (bytes int64, ok bool)
	// MaxRequestBytes caps a request body, both as sent and after gzip
	// decoding. Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// MaxGitProcesses caps concurrent git upload-pack/receive-pack runs.
	MaxGitProcesses int
	// GitTimeout bounds one git process. Zero means DefaultGitTimeout.
	GitTimeout time.Duration
	// QueueWait bounds the wait for a process slot. Zero means
	// DefaultQueueWait.
	QueueWait time.Duration
	// GitBinary is the git executable; empty means "git" from PATH.
	GitBinary string
	// HookBinary is the program the hooks exec as `<bin> git hook <name>`;
	// it must call [RunHook]. Empty means this executable.
	HookBinary string
	// Logger receives request and push logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock for token windows and event timestamps; nil means
	// time.Now. For tests.
	Now func() time.Time
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if o.DataDir == "" {
		return o, errors.New("gitbridge: DataDir is required")
	}
	if o.IsMember == nil {
		return o, errors.New("gitbridge: IsMember is required")
	}
	if o.Publish != nil && o.Signer == nil {
		return o, errors.New("gitbridge: Publish needs a Signer")
	}
	if o.RequireSignedCommits && o.VerifySignature == nil {
		return o, errors.New("gitbridge: RequireSignedCommits needs VerifySignature")
	}
	if err := checkPublicURL(o.PublicURL); err != nil {
		return o, err
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	if o.ProtectedBranches == nil {
		o.ProtectedBranches = DefaultProtectedBranches
	}
	o.MaxRequestBytes = orDefault(o.MaxRequestBytes, DefaultMaxRequestBytes)
	o.MaxGitProcesses = int(orDefault(int64(o.MaxGitProcesses), DefaultMaxGitProcesses))
	o.GitTimeout = time.Duration(orDefault(int64(o.GitTimeout), int64(DefaultGitTimeout)))
	o.QueueWait = time.Duration(orDefault(int64(o.QueueWait), int64(DefaultQueueWait)))
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o.withBinaries()
}

// withBinaries resolves git and the hook program to absolute paths, so a
// later change of PATH or working directory cannot swap them.
func (o Options) withBinaries() (Options, error) {
	git := o.GitBinary
	if git == "" {
		git = "git"
	}
	p, err := exec.LookPath(git)
	if err != nil {
		return o, fmt.Errorf("gitbridge: git binary: %w", err)
	}
	if o.GitBinary, err = filepath.Abs(p); err != nil {
		return o, err
	}
	if o.HookBinary == "" {
		if o.HookBinary, err = os.Executable(); err != nil {
			return o, fmt.Errorf("gitbridge: hook binary: %w", err)
		}
	}
	if o.HookBinary, err = filepath.Abs(o.HookBinary); err != nil {
		return o, err
	}
	return o, nil
}

func orDefault(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// checkPublicURL insists on an absolute http(s) URL without query or
// fragment: repository URLs are built by appending to it.
func checkPublicURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("gitbridge: PublicURL %q must be an absolute http(s) URL without query", raw)
	}
	return nil
}
