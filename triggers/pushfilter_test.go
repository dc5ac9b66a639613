package triggers_test

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// pushFilterTOML selects pushes by repository — "a" and "d", with the
// owner as npub (the shipped example's form) or hex — and by changed ref.
const pushFilterTOML = `
relay = %[1]q
state_dir = %[2]q

[[trigger]]
name = "heads"
worker = %[3]q
tool = "echo"
reply = "channel:%[4]s"
[trigger.filter]
kinds = [30618]
a = ["30617:OWNER_NPUB:app"]
refs = ["refs/heads/*"]
[trigger.arguments]
text = "{{.Repo.Ref}}"
[trigger.message]
ok = "fired {{.Trigger}} {{.Repo.Name}} {{.Repo.Ref}} {{.Repo.Short}}"

[[trigger]]
name = "rel"
worker = %[3]q
tool = "echo"
reply = "channel:%[4]s"
[trigger.filter]
kinds = [30618]
d = ["OWNER_NPUB/app"]
refs = ["refs/heads/rel-*"]
[trigger.arguments]
text = "{{.Repo.Ref}}"
[trigger.message]
ok = "fired {{.Trigger}} {{.Repo.Name}} {{.Repo.Ref}} {{.Repo.Short}}"

[[trigger]]
name = "tags"
worker = %[3]q
tool = "echo"
reply = "channel:%[4]s"
[trigger.filter]
kinds = [30618]
a = ["30617:OWNER_HEX:app"]
refs = ["refs/tags/v*"]
[trigger.arguments]
text = "{{.Repo.Ref}}"
[trigger.message]
ok = "fired {{.Trigger}} {{.Repo.Name}} {{.Repo.Ref}} {{.Repo.Short}}"

[[trigger]]
name = "lib"
worker = %[3]q
tool = "echo"
reply = "channel:%[4]s"
[trigger.filter]
kinds = [30618]
d = ["OWNER_HEX/lib"]
[trigger.arguments]
text = "{{.Repo.Ref}}"
[trigger.message]
ok = "fired {{.Trigger}} {{.Repo.Name}} {{.Repo.Ref}} {{.Repo.Short}}"
`

// Pushes fire the triggers whose repository and ref patterns they match,
// and no other. Each trigger handles its events in order, so once every
// trigger has answered the last push it matches, a wrong match of an
// earlier push would have been posted too.
func TestPushFiltersByRepoAndRef(t *testing.T) {
	f := newFixture(t, nil)
	owner := f.r.Member
	toml := strings.NewReplacer("OWNER_NPUB", owner.NPub(), "OWNER_HEX", owner.PublicKey()).Replace(pushFilterTOML)
	f.start(t.TempDir(), toml)

	const (
		main, rel1, rel2 = "refs/heads/main", "refs/heads/rel-1", "refs/heads/rel-2"
		v1, v2, nightly  = "refs/tags/v1", "refs/tags/v2", "refs/tags/nightly"
	)
	now := nostr.Now()
	f.pushStateOf(owner, "app", now, [2]string{main, sha1})                        // heads
	f.pushStateOf(owner, "lib", now+1, [2]string{main, sha1})                      // lib
	f.pushStateOf(f.r.Admin, "app", now+2, [2]string{main, sha1})                  // another owner's app: none
	f.pushStateOf(owner, "app", now+3, [2]string{main, sha1}, [2]string{v1, sha2}) // tags
	f.pushStateOf(owner, "app", now+4, [2]string{main, sha1}, [2]string{v1, sha2}, // heads, rel; not tags
		[2]string{nightly, sha2}, [2]string{rel1, sha2})
	f.pushStateOf(owner, "app", now+5, [2]string{main, sha1}, [2]string{v1, sha2}, // heads, rel, tags
		[2]string{nightly, sha2}, [2]string{rel1, sha2}, [2]string{rel2, sha1}, [2]string{v2, sha1})
	f.pushStateOf(owner, "lib", now+6, [2]string{main, sha2}) // lib

	last := []string{"fired heads app refs/heads/rel-2 1111111", "fired rel app refs/heads/rel-2 1111111",
		"fired tags app refs/tags/v2 1111111", "fired lib lib refs/heads/main 2222222"}
	msgs := f.waitUntil("answer to every trigger's last push", func(msgs []*nostr.Event) bool {
		got := strings.Join(headlines(msgs), "\n")
		for _, l := range last {
			if !strings.Contains(got, l) {
				return false
			}
		}
		return true
	})
	want := []string{
		"fired heads app refs/heads/main 1111111",
		"fired heads app refs/heads/rel-1 2222222",
		"fired heads app refs/heads/rel-2 1111111",
		"fired lib lib refs/heads/main 1111111",
		"fired lib lib refs/heads/main 2222222",
		"fired rel app refs/heads/rel-1 2222222",
		"fired rel app refs/heads/rel-2 1111111",
		"fired tags app refs/tags/v1 2222222",
		"fired tags app refs/tags/v2 1111111",
	}
	if got := headlines(msgs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
