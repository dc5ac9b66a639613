package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/gitbridge"
	"toolbus/gitbridge/gitcred"
	"toolbus/internal/config"
	"toolbus/relay"
	"toolbus/signer/gitsig"
)

func init() {
	register("git", "git helpers: credential, sign, hook, setup", runGit)
}

// gitHelperNames are the names under which this binary acts as git's
// helper programs (argv0 dispatch), so one install is enough.
var gitHelperNames = map[string]func([]string) int{
	"git-credential-nostr": func(args []string) int { return gitcred.Run(args, os.Stdin, os.Stdout, os.Stderr) },
	"git-sign-nostr": func(args []string) int {
		return gitsig.Run(args, os.Stdin, os.Stdout, os.Stderr, gitsig.OSStatusFD)
	},
}

func runGit(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: toolbus git credential|sign|hook NAME|setup [flags]")
		return 2
	}
	switch args[0] {
	case "credential":
		return gitHelperNames["git-credential-nostr"](args[1:])
	case "sign":
		return gitHelperNames["git-sign-nostr"](args[1:])
	case "hook":
		if len(args) < 2 {
			return fail(stderr, "usage: toolbus git hook pre-receive|post-receive")
		}
		return gitbridge.RunHook(args[1], os.Stdin, stdout, stderr, os.Environ())
	case "setup":
		return gitSetup(args[1:], stdout, stderr)
	default:
		return fail(stderr, "unknown git command %q (want credential, sign, hook or setup)", args[0])
	}
}

// newGitBridge serves git beside the relay, with the relay's membership,
// stored announcements, key and store.
func newGitBridge(srv *relay.Server, cfg config.Config, logger *slog.Logger) (*gitbridge.Bridge, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return gitbridge.New(gitbridge.Options{
		DataDir:              cfg.DataDir,
		PublicURL:            cfg.HTTPURL(),
		IsMember:             srv.IsMember,
		Announcement:         announcementLookup(srv),
		Signer:               srv.Signer(),
		Publish:              srv.PublishInternal,
		OnPush:               pushMessenger(srv, logger),
		ProtectedBranches:    cfg.Git.ProtectedBranches,
		RequireSignedCommits: cfg.Git.RequireSignedCommits,
		VerifySignature:      verifyGitSignature,
		MaxRequestBytes:      cfg.Git.MaxRequestBytes,
		Headroom:             srv.Headroom,
		HookBinary:           exe,
		Logger:               logger,
	})
}

// announcementLookup reads the owner's latest NIP-34 repository
// announcement (kind 30617, d = repo) from the relay's store.
func announcementLookup(srv *relay.Server) func(context.Context, string, string) (*gitbridge.RepoAnnouncement, error) {
	return func(ctx context.Context, owner, repo string) (*gitbridge.RepoAnnouncement, error) {
		evs := srv.QueryStored(ctx, nostr.Filter{Kinds: []int{nostr.KindRepositoryAnnouncement},
			Authors: []string{owner}, Tags: nostr.TagMap{"d": {repo}}, Limit: 1})
		if len(evs) == 0 {
			return nil, nil
		}
		return gitbridge.ParseAnnouncement(evs[0], owner, repo)
	}
}

// pushMessenger posts, after each accepted push to a repository whose
// announcement binds it to a channel, the relay-signed kind-9 message of
// [gitbridge.Push.ChannelMessage] into that channel, through the relay's
// store and broadcast like any stored event (subscribers and triggers see
// it; channel visibility applies on delivery). The binding is the owner's:
// the message is posted only while the owner is a member of the channel, by
// the relay's published member list (39002), so nobody can push text into
// a channel they are not in by naming it in an announcement.
func pushMessenger(srv *relay.Server, logger *slog.Logger) func(context.Context, gitbridge.Push) {
	return func(ctx context.Context, p gitbridge.Push) {
		ev := p.ChannelMessage()
		if ev == nil {
			return
		}
		if !channelMember(ctx, srv, p.Channel, p.Owner) {
			logger.Warn("git: repository bound to a channel its owner is not a member of; no push message",
				"owner", p.Owner, "repo", p.Repo, "channel", p.Channel)
			return
		}
		if err := srv.Signer().SignEvent(ctx, ev); err != nil {
			logger.Error("git: sign push message", "repo", p.Repo, "err", err)
			return
		}
		if err := srv.PublishInternal(ctx, ev); err != nil {
			logger.Error("git: post push message", "repo", p.Repo, "channel", p.Channel, "err", err)
		}
	}
}

// channelMember reports whether pk is in the channel's relay-signed member
// list (kind 39002, d = channel), which exists exactly while the channel does.
func channelMember(ctx context.Context, srv *relay.Server, channel, pk string) bool {
	evs := srv.QueryStored(ctx, nostr.Filter{Kinds: []int{39002}, Authors: []string{srv.PublicKey()},
		Tags: nostr.TagMap{"d": {channel}}, Limit: 1})
	return len(evs) == 1 && evs[0].Tags.FindWithValue("p", pk) != nil
}

func verifyGitSignature(payload, sig []byte) (string, error) {
	s, err := gitsig.Verify(payload, sig)
	if err != nil {
		return "", err
	}
	return s.PubKey, nil
}

// helperLinks makes dir/git-credential-nostr and dir/git-sign-nostr links
// to this executable, for git configs that need a program path.
func helperLinks(dir string) (cred, sign string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	for name := range gitHelperNames {
		link := filepath.Join(dir, name)
		tmp := link + ".tmp"
		os.Remove(tmp)
		if err := os.Symlink(exe, tmp); err != nil {
			return "", "", err
		}
		if err := os.Rename(tmp, link); err != nil {
			return "", "", err
		}
	}
	return filepath.Join(dir, "git-credential-nostr"), filepath.Join(dir, "git-sign-nostr"), nil
}
