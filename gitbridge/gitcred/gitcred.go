// Package gitcred is a git credential helper that answers with a NIP-98
// token for the repository git is talking to. It backs the
// git-credential-nostr command and `toolbus git credential`.
//
// git runs the helper with "get" and a description of the request on stdin
// (protocol, host, path, capabilities). The helper signs a kind-27235 event
// whose u is the repository root URL, protocol://host/<path up to and
// including the first segment ending in ".git">, and answers:
//
//   - when git offered capability[]=authtype (git 2.46 and later):
//     authtype=Nostr and credential=<base64 event>, marked ephemeral, which
//     git sends as "Authorization: Nostr <base64 event>";
//   - otherwise: username=nostr and password=<base64 event>, which git sends
//     as HTTP Basic, and the bridge accepts as well. password_expiry_utc
//     tells git 2.41+ credential caches to drop it when it expires.
//
// The method tag is "GET": git reuses the credential for the POST that
// follows, and the bridge does not check the method (see spec/PROTOCOL.md
// §9.2).
// store and erase are no-ops: a token is good for 60 seconds, so there is
// nothing worth keeping. On failure nothing is written to stdout, so git
// moves on to its next helper or prompt; the reason goes to stderr.
package gitcred

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"toolbus/nip98"
)

// Run is the whole helper: args are the arguments after the program name
// (the operation), and the return value is the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: git-credential-nostr get|store|erase (run by git; see credential.helper)")
		return 2
	}
	switch args[0] {
	case "get":
		return get(stdin, stdout, stderr)
	default:
		// store, erase and operations added by later gits: nothing to do.
		// Drain the input so git never sees a broken pipe.
		_, _ = io.Copy(io.Discard, io.LimitReader(stdin, maxInput))
		return 0
	}
}

// get answers a "get" request. Output is assembled first and written in
// one go, so a failure leaves stdout empty.
func get(stdin io.Reader, stdout, stderr io.Writer) int {
	req, err := readRequest(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "git-credential-nostr: %v\n", err)
		return 1
	}
	u, err := req.repoURL()
	if err != nil {
		fmt.Fprintf(stderr, "git-credential-nostr: %v\n", err)
		return 1
	}
	key, err := loadKey()
	if err != nil {
		fmt.Fprintf(stderr, "git-credential-nostr: %v\n", err)
		return 1
	}
	tok, err := nip98.Build(context.Background(), key, u, "GET", nil)
	if err != nil {
		fmt.Fprintf(stderr, "git-credential-nostr: %v\n", err)
		return 1
	}
	_, err = stdout.Write(answer(req.authtype, tok, time.Now()))
	if err != nil {
		return 1
	}
	return 0
}

// answer formats the credential for git.
func answer(authtype bool, token string, now time.Time) []byte {
	w := &bytes.Buffer{}
	if authtype {
		fmt.Fprintln(w, "capability[]=authtype")
		fmt.Fprintln(w, "authtype=Nostr")
		fmt.Fprintln(w, "credential="+token)
		fmt.Fprintln(w, "ephemeral=true")
	} else {
		// The bridge accepts a token up to nip98.DefaultWindow after it
		// was made.
		expiry := now.Add(nip98.DefaultWindow).Unix()
		fmt.Fprintln(w, "username=nostr")
		fmt.Fprintln(w, "password="+token)
		fmt.Fprintln(w, "password_expiry_utc="+strconv.FormatInt(expiry, 10))
	}
	return w.Bytes()
}
