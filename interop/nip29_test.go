package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"toolbus/internal/config"
	"toolbus/internal/testutil"
)

// A stock nostr-tools client creates a private channel, invites a member,
// posts and replies in a thread and reads it back; a workspace member
// outside the channel sees none of it with any filter, stored or live; the
// relay-signed metadata matches the state.
func TestNostrToolsChannel(t *testing.T) {
	RequireJS(t)
	owner, member, outsider := testutil.NewKey(t), testutil.NewKey(t), testutil.NewKey(t)
	r := testutil.StartRelay(t, func(c *config.Config) {
		c.Workspace.Members = append(c.Workspace.Members, owner.PublicKey(), member.PublicKey(), outsider.PublicKey())
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(JSDir(), "nip29-client.mjs"))
	cmd.Env = scriptEnv(map[string]string{"RELAY_URL": r.URL, "GROUP": "design",
		"OWNER_SK": keyHex(t, owner), "MEMBER_SK": keyHex(t, member), "OUTSIDER_SK": keyHex(t, outsider)})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res struct {
		OK       bool   `json:"ok"`
		Error    string `json:"error"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		Thread   int `json:"thread"`
		Metadata []struct {
			Kind   int        `json:"kind"`
			PubKey string     `json:"pubkey"`
			Tags   [][]string `json:"tags"`
		} `json:"metadata"`
		OutsiderSaw []int `json:"outsiderSaw"`
	}
	if err := json.Unmarshal([]byte(lastJSONLine(stdout.String())), &res); err != nil || !res.OK {
		t.Fatalf("nip29-client: %v %v %s\n%s", runErr, err, res.Error, stderr.String())
	}
	if len(res.Messages) != 2 || res.Thread != 1 {
		t.Fatalf("member reads %d messages, %d in the thread: %+v", len(res.Messages), res.Thread, res.Messages)
	}
	if len(res.OutsiderSaw) != 0 {
		t.Fatalf("the outsider saw channel events of kinds %v", res.OutsiderSaw)
	}
	kinds := map[int]bool{}
	for _, m := range res.Metadata {
		if m.PubKey != r.Server.PublicKey() {
			t.Fatalf("metadata kind %d not signed by the relay", m.Kind)
		}
		kinds[m.Kind] = true
		if m.Kind == 39002 && !(hasTag(m.Tags, "p", owner.PublicKey()) && hasTag(m.Tags, "p", member.PublicKey())) {
			t.Fatalf("39002 does not list owner and member: %v", m.Tags)
		}
		if m.Kind == 39000 && !(hasTag(m.Tags, "private", "") && hasTag(m.Tags, "name", "Design")) {
			t.Fatalf("39000 does not match the channel: %v", m.Tags)
		}
	}
	if !kinds[39000] || !kinds[39001] || !kinds[39002] {
		t.Fatalf("metadata kinds %v", kinds)
	}
}

func hasTag(tags [][]string, name, value string) bool {
	for _, tg := range tags {
		if len(tg) > 0 && tg[0] == name && (value == "" || (len(tg) > 1 && tg[1] == value)) {
			return true
		}
	}
	return false
}
