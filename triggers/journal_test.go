package triggers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

func openTest(t *testing.T, dir string) *journal {
	t.Helper()
	j, err := openJournal(dir, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestJournalSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	j := openTest(t, dir)
	now := time.Now().Unix()
	ev := &nostr.Event{ID: "e1", Kind: 9, CreatedAt: nostr.Timestamp(now)}
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "e1", State: stateQueued, CreatedAt: now, Event: ev}))
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "e1", State: stateSent,
		Call: &callRecord{Request: "r1", Started: now}}))
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "e2", State: stateDone, CreatedAt: now}))
	if _, err := openJournal(dir, time.Hour); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second runner on the same state dir: %v", err)
	}
	j.close()

	j = openTest(t, dir)
	defer j.close()
	un := j.unfinished()
	if len(un) != 1 || un[0].State != stateSent || un[0].Call.Request != "r1" || un[0].Event.ID != "e1" {
		t.Fatalf("unfinished after reopen: %+v", un)
	}
	if !j.known("t", "e2") || j.known("u", "e2") {
		t.Fatal("done entry forgotten, or known under another trigger")
	}
}

// A crash mid-write leaves a torn last line: the step it recorded never
// happened. A bad line elsewhere is corruption and stops the runner.
func TestJournalTornAndCorruptLines(t *testing.T) {
	dir := t.TempDir()
	j := openTest(t, dir)
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "e1", State: stateQueued, CreatedAt: time.Now().Unix()}))
	j.close()
	path := filepath.Join(dir, journalName)
	good, _ := os.ReadFile(path)
	torn := append(append([]byte{}, good...), []byte(`{"k":"entry","t":"t","e":"e1","s":"do`)...)
	must(t, os.WriteFile(path, torn, 0o600))
	j = openTest(t, dir)
	if un := j.unfinished(); len(un) != 1 || un[0].State != stateQueued {
		t.Fatalf("after torn line: %+v", un)
	}
	j.close()

	must(t, os.WriteFile(path, append([]byte("garbage\n"), good...), 0o600))
	if _, err := openJournal(dir, time.Hour); err == nil || !strings.Contains(err.Error(), "line 1 is corrupt") {
		t.Fatalf("corrupt journal opened: %v", err)
	}
}

// Done entries past the retention are dropped when the journal is
// rewritten; everything else stays.
func TestJournalCompactionKeepsLive(t *testing.T) {
	dir := t.TempDir()
	j := openTest(t, dir)
	old := time.Now().Add(-2 * time.Hour).Unix()
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "old", State: stateDone, CreatedAt: old}))
	must(t, j.put(&record{Kind: "entry", Trigger: "t", EventID: "oldq", State: stateQueued, CreatedAt: old}))
	must(t, j.put(&record{Kind: "start", Trigger: "t", Start: old}))
	must(t, j.put(&record{Kind: "repo", Repo: &RepoInfo{Owner: owner, Name: "app", StateEvent: "s"}}))
	j.close()
	j = openTest(t, dir)
	defer j.close()
	if j.known("t", "old") || !j.known("t", "oldq") {
		t.Fatal("compaction dropped the wrong entries")
	}
	if at, _ := j.start("t", 0); at != old || j.repo(owner+"/app") == nil {
		t.Fatal("compaction lost the start time or the repository state")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
