package gitbridge

import (
	"context"
	"slices"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// MaxStateRefs caps the ref tags of a state event, below the relay's
// default max_event_tags (2,000). Branches sort before tags, so a repository
// with too many refs loses tags from the event first.
const MaxStateRefs = 1900

// Push describes a push that changed at least one ref, for Options.OnPush.
type Push struct {
	// Owner and Pusher are hex pubkeys; Repo is the name without ".git".
	Owner, Repo, Pusher string
	// URL is the repository's clone URL, with the owner as npub.
	URL string
	// Updates are the refs that changed, as git's post-receive saw them.
	Updates []RefUpdate
	// State is the published kind-30618 event; nil if none was published.
	State *nostr.Event
	// Channel is the announcement's channel binding ("h"), or "".
	Channel string
}

// ref is one line of for-each-ref.
type ref struct{ name, id string }

// afterPush runs once receive-pack has exited: it points a dangling HEAD at
// a pushed branch, publishes the state and calls OnPush. The state is read
// and stamped under the repository lock, so concurrent pushes publish
// snapshots in the order they were taken, with increasing created_at.
func (b *Bridge) afterPush(ctx context.Context, rt route, dir, pusher string, ann *RepoAnnouncement, updates []RefUpdate) {
	if len(updates) == 0 {
		return // nothing changed: a failed push, or git's auth probe
	}
	b.log.Info("git: push", "owner", rt.owner, "repo", rt.name, "pusher", pusher, "refs", len(updates))
	unlock := b.locks.lock(dir)
	ev := b.publishState(ctx, rt, dir)
	unlock()
	if b.opts.OnPush == nil {
		return
	}
	p := Push{Owner: rt.owner, Repo: rt.name, Pusher: pusher, URL: b.cloneURL(rt), Updates: updates, State: ev}
	if ann != nil {
		p.Channel = ann.Channel
	}
	b.opts.OnPush(ctx, p)
}

// publishState builds, signs and publishes the kind-30618 event. Failures
// are logged: the push itself has already succeeded.
func (b *Bridge) publishState(ctx context.Context, rt route, dir string) *nostr.Event {
	refs, head, err := b.readState(ctx, dir)
	if err != nil {
		b.log.Error("git: read refs after push", "repo", dir, "err", err)
		return nil
	}
	if b.opts.Publish == nil {
		return nil
	}
	ev := b.stateEvent(rt, refs, head)
	ev.CreatedAt = nostr.Timestamp(b.clock.next(dir, b.opts.Now().Unix()))
	if err := b.opts.Signer.SignEvent(ctx, ev); err != nil {
		b.log.Error("git: sign state event", "repo", dir, "err", err)
		return nil
	}
	if err := b.opts.Publish(ctx, ev); err != nil {
		b.log.Error("git: publish state event", "repo", dir, "err", err)
		return nil
	}
	return ev
}

// readState lists branches and tags and HEAD's target, first pointing a
// dangling HEAD (a fresh repository whose first push did not create "main")
// at "main", "master" or the first branch, as hosting services do.
func (b *Bridge) readState(ctx context.Context, dir string) ([]ref, string, error) {
	env := []string{"GIT_DIR=" + dir}
	out, err := b.gitOutput(ctx, dir, env, nil, "for-each-ref",
		"--format=%(objectname) %(refname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return nil, "", err
	}
	var refs []ref
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok {
			refs = append(refs, ref{name: name, id: id})
		}
	}
	head, _ := b.gitOutput(ctx, dir, env, nil, "symbolic-ref", "-q", "HEAD")
	target := strings.TrimSpace(string(head))
	if fixed := pickHEAD(refs, target); fixed != target {
		if _, err := b.gitOutput(ctx, dir, env, nil, "symbolic-ref", "HEAD", fixed); err != nil {
			return nil, "", err
		}
		target = fixed
	}
	return refs, target, nil
}

// pickHEAD returns target if it names an existing branch, else the branch
// HEAD should point at, or "" when there are no branches.
func pickHEAD(refs []ref, target string) string {
	has := func(name string) bool {
		return slices.ContainsFunc(refs, func(r ref) bool { return r.name == name })
	}
	for _, name := range []string{target, "refs/heads/main", "refs/heads/master"} {
		if name != "" && strings.HasPrefix(name, "refs/heads/") && has(name) {
			return name
		}
	}
	for _, r := range refs { // sorted by name: the first branch
		if strings.HasPrefix(r.name, "refs/heads/") {
			return r.name
		}
	}
	return ""
}

// stateEvent is the unsigned NIP-34 state event. The relay signs the states
// of every owner's repositories, so d is "<owner hex>/<repo>" (a bare repo
// name would collide between owners); the a tag names the owner's 30617
// announcement, as NIP-34 clients look for it.
func (b *Bridge) stateEvent(rt route, refs []ref, head string) *nostr.Event {
	tags := nostr.Tags{
		{"d", rt.owner + "/" + rt.name},
		{"a", "30617:" + rt.owner + ":" + rt.name},
		{"p", rt.owner},
		{"clone", b.cloneURL(rt)},
	}
	for i, r := range refs {
		if i == MaxStateRefs {
			break
		}
		tags = append(tags, nostr.Tag{r.name, r.id})
	}
	if head != "" {
		tags = append(tags, nostr.Tag{"HEAD", "ref: " + head})
	}
	return &nostr.Event{Kind: nostr.KindRepositoryState, Tags: tags}
}

// cloneURL is the repository URL with the owner as npub, the form shown to
// people.
func (b *Bridge) cloneURL(rt route) string {
	return b.opts.PublicURL + "/git/" + signer.EncodeNPub(rt.owner) + "/" + rt.name + ".git"
}
