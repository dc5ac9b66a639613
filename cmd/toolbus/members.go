package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"toolbus/relay"
	"toolbus/signer"
)

func init() {
	register("members", "manage workspace members over NIP-86 (list|add|remove|ban|unban)", runMembers)
}

// memberMethods maps the subcommands to NIP-86 methods.
var memberMethods = map[string]string{
	"list": "listallowedpubkeys", "banned": "listbannedpubkeys",
	"add": "allowpubkey", "remove": "unallowpubkey", "ban": "banpubkey", "unban": "unbanpubkey",
}

func runMembers(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolbus members", flag.ContinueOnError)
	fs.SetOutput(stderr)
	relayURL := fs.String("relay", "http://127.0.0.1:7447", "relay public URL")
	keyFile := fs.String("key-file", "", "admin key file (default: NOSTR_PRIVATE_KEY, then "+defaultKeyFile()+")")
	reason := fs.String("reason", "", "reason recorded with add/ban")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 || memberMethods[pos[0]] == "" {
		fmt.Fprintln(stderr, "usage: toolbus members list|banned|add|remove|ban|unban [NPUB] [--relay URL] [--key-file F] [--reason R]")
		return 2
	}
	key, _, err := loadUserKey(*keyFile, "")
	if err != nil {
		return fail(stderr, "%v", err)
	}
	params, err := memberParams(pos, *reason)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	res, err := relay.Manage(ctx, httpForm(*relayURL), key, memberMethods[pos[0]], params...)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	return printMembersResult(stdout, res)
}

func memberParams(pos []string, reason string) ([]any, error) {
	if pos[0] == "list" || pos[0] == "banned" {
		return nil, nil
	}
	if len(pos) != 2 {
		return nil, fmt.Errorf("members %s needs exactly one npub or hex pubkey", pos[0])
	}
	pk, err := signer.ParsePubKey(pos[1])
	if err != nil {
		return nil, err
	}
	return []any{pk, reason}, nil
}

func printMembersResult(w io.Writer, res json.RawMessage) int {
	var rows []struct {
		PubKey string `json:"pubkey"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(res, &rows) != nil {
		fmt.Fprintln(w, "ok")
		return 0
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s  %s  %s\n", signer.EncodeNPub(r.PubKey), r.PubKey, r.Reason)
	}
	return 0
}
