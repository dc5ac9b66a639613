package gitbridge

import "bytes"

// sigHeader is the commit header that holds a signature in a SHA-1
// repository; "gpgsig-sha256" is the one for SHA-256 repositories.
const sigHeader = "gpgsig"

// SplitSignedCommit splits a raw commit object (the output of `git cat-file
// commit <id>`) into the payload that was signed and the signature, exactly
// as git does before handing them to a verifier:
//
//   - in the header block (up to the first empty line), the "gpgsig" header
//     and its continuation lines (lines starting with a space) form the
//     signature: the header name and one space, or the leading space of a
//     continuation line, are dropped, and every line keeps its "\n";
//   - the payload is the object without those lines, and also without any
//     other header whose name starts with "gpgsig" (a signature for another
//     hash algorithm) and its continuation lines;
//   - everything from the empty line on is payload, unchanged.
//
// ok is false when the commit has no "gpgsig" header.
func SplitSignedCommit(raw []byte) (payload, signature []byte, ok bool) {
	var inSig, inOther bool
	rest := raw
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		if line[0] == '\n' { // end of headers: the rest is the message
			payload = append(payload, rest...)
			break
		}
		rest = rest[len(line):]
		cont := line[0] == ' '
		switch {
		case cont && inSig:
			signature = append(signature, line[1:]...)
			continue
		case cont && inOther:
			continue
		case bytes.HasPrefix(line, []byte(sigHeader+" ")):
			signature = append(signature, line[len(sigHeader)+1:]...)
			inSig, inOther, ok = true, false, true
			continue
		case bytes.HasPrefix(line, []byte(sigHeader)):
			inSig, inOther = false, true
			continue
		}
		inSig, inOther = false, false
		payload = append(payload, line...)
	}
	return payload, signature, ok
}
