package main_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolbus/internal/testutil"
)

// A git push that does not fit on data_dir's filesystem is refused, says
// why, and leaves the repository as it was: refs unchanged, git fsck clean,
// no quarantined objects left behind taking the space, and the next push
// that fits goes through.
//
// git sends a large pack chunked, without announcing its size, so the
// bridge runs receive-pack with receive.maxInputSize at half the space
// above the reserve (limits.min_free_disk_mb): a pack bigger than that is
// refused while it streams in, before the filesystem fills, and git's
// quarantine keeps the refs consistent.
func TestGitPushOnFullDiskIsRefusedCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dataDir := mountTmpfs(t, "48m", false)
	owner := testutil.NewKey(t)
	relay, relayURL := startRelayProcessWith(t, dataDir,
		fmt.Sprintf("[workspace]\nmembers = [%q]\n[limits]\nmin_free_disk_mb = 4\n", owner.PublicKey()))
	remote := strings.Replace(relayURL, "ws://", "http://", 1) + "/git/" + owner.NPub() + "/proj.git"
	co := newGitCheckout(t, owner, remote)
	first := co.commitPush(t, "README", "hello\n")
	bare := filepath.Join(dataDir, "git", owner.PublicKey(), "proj.git")
	refsBefore := must(t, nil, bare, "git", "for-each-ref")
	if !strings.Contains(refsBefore, first) {
		t.Fatalf("first push not in the bare repository:\n%s", refsBefore)
	}

	// 64 MiB of incompressible data cannot fit in a 48 MiB filesystem.
	big := make([]byte, 64<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(co.dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, co.env, co.dir, "git", "add", "big.bin")
	must(t, co.env, co.dir, "git", "-c", "user.email=o@example", "commit", "-q", "-m", "too big")
	out, err := run(t, co.env, co.dir, "git", "push", "origin", "main")
	t.Logf("push onto a full disk:\n%s", out)
	if err == nil {
		t.Fatal("a push larger than the disk was accepted")
	}
	if !strings.Contains(out, "pack exceeds maximum allowed size") {
		t.Fatalf("the refusal does not say the pack is too big for the disk:\n%s", out)
	}

	if refs := must(t, nil, bare, "git", "for-each-ref"); refs != refsBefore {
		t.Fatalf("refs changed by a refused push:\nbefore %s\nafter  %s", refsBefore, refs)
	}
	if out, err := run(t, nil, bare, "git", "fsck", "--full", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("git fsck after the refused push: %v\n%s", err, out)
	}
	leftovers, _ := filepath.Glob(filepath.Join(bare, "objects", "incoming-*"))
	packs, _ := filepath.Glob(filepath.Join(bare, "objects", "pack", "tmp_*"))
	if len(leftovers)+len(packs) > 0 {
		t.Fatalf("the refused push left files behind: %v %v", leftovers, packs)
	}
	if relay.ProcessState != nil {
		t.Fatal("relay exited")
	}

	// The space is back: a push that fits goes through.
	must(t, co.env, co.dir, "git", "reset", "-q", "--hard", first)
	next := co.commitPush(t, "NEXT", "fits\n")
	if refs := must(t, nil, bare, "git", "for-each-ref"); !strings.Contains(refs, next) {
		t.Fatalf("push after the refusal not in the bare repository:\n%s", refs)
	}
}

// A push that would eat into the reserve the event store keeps
// (limits.min_free_disk_mb) is refused before git writes anything, with a
// reason git shows the pusher; once space is freed, pushes go through.
func TestGitPushRefusedWhenReserveIsGone(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dataDir := mountTmpfs(t, "32m", false)
	owner := testutil.NewKey(t)
	_, relayURL := startRelayProcessWith(t, dataDir,
		fmt.Sprintf("[workspace]\nmembers = [%q]\n[limits]\nmin_free_disk_mb = 20\n", owner.PublicKey()))
	remote := strings.Replace(relayURL, "ws://", "http://", 1) + "/git/" + owner.NPub() + "/proj.git"
	co := newGitCheckout(t, owner, remote)
	first := co.commitPush(t, "README", "hello\n")

	// Something else fills the filesystem to below the reserve.
	filler := filepath.Join(dataDir, "filler")
	if err := os.WriteFile(filler, make([]byte, 12<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(co.dir, "NEXT"), "refused\n")
	must(t, co.env, co.dir, "git", "add", ".")
	must(t, co.env, co.dir, "git", "-c", "user.email=o@example", "commit", "-q", "-m", "next")
	out, err := run(t, co.env, co.dir, "git", "push", "origin", "main")
	if err == nil || !strings.Contains(out, "disk is full") {
		t.Fatalf("push into the reserve: err %v, want a refusal saying the disk is full:\n%s", err, out)
	}
	bare := filepath.Join(dataDir, "git", owner.PublicKey(), "proj.git")
	if refs := must(t, nil, bare, "git", "for-each-ref"); !strings.Contains(refs, first) {
		t.Fatalf("refs changed by a refused push:\n%s", refs)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, co.env, co.dir, "git", "push", "origin", "main"); err != nil {
		t.Fatalf("push after space was freed: %v\n%s", err, out)
	}
}
