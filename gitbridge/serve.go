package gitbridge

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// errTooLarge means a request body passed MaxRequestBytes.
var errTooLarge = errors.New("gitbridge: request body too large")

// serveAdvertisement answers GET info/refs?service=... with the ref
// advertisement. The output is buffered (it is small) so that a failing git
// becomes a clean 500 instead of a truncated 200.
func (b *Bridge) serveAdvertisement(w http.ResponseWriter, r *http.Request, rt route, dir string) {
	if rt.push() {
		if _, ok := b.pushRoom(w, 0); !ok {
			return
		}
	}
	release, err := b.acquire(r.Context())
	if err != nil {
		busy(w, err)
		return
	}
	defer release()
	env := protocolEnv(r.Header.Get("Git-Protocol"))
	var out bytes.Buffer
	// As git http-backend does: protocol v2 starts with its capability
	// advertisement, v0/v1 with a "# service=" packet and a flush.
	if len(env) == 0 || !protocolV2(env[0]) {
		out.WriteString(pktLine("# service=" + rt.service + "\n"))
		out.WriteString("0000")
	}
	cmd, cancel := b.command(r.Context(), env, strings.TrimPrefix(rt.service, "git-"),
		"--stateless-rpc", "--advertise-refs", dir)
	defer cancel()
	cmd.Stdout, cmd.Stderr = &out, &capped{max: 4 << 10}
	if err := cmd.Run(); err != nil {
		b.log.Error("git: advertise refs", "repo", dir, "err", err, "stderr", cmd.Stderr)
		http.Error(w, "git failed", http.StatusInternalServerError)
		return
	}
	noCache(w)
	w.Header().Set("Content-Type", "application/x-"+rt.service+"-advertisement")
	_, _ = w.Write(out.Bytes())
}

// errNoRoom refuses a push that would eat into the relay's disk reserve.
var errNoRoom = errors.New("disk is full: the relay takes no pushes until space is freed")

// pushRoom checks Options.Headroom, once per request, for a push of need
// bytes. When it does not fit it answers 507 with the reason (git shows a
// text/plain body as "remote: …") and reports false. Otherwise it returns
// the -c receive.maxInputSize for receive-pack, half the room (pack plus
// index), so that a pack of undeclared size cannot run the filesystem into
// the reserve; none when Headroom is unset or cannot tell.
func (b *Bridge) pushRoom(w http.ResponseWriter, need int64) ([]string, bool) {
	if b.opts.Headroom == nil {
		return nil, true
	}
	room, known := b.opts.Headroom()
	if !known {
		return nil, true
	}
	if room <= need {
		b.log.Warn("git: push refused: disk reserve reached", "headroom", room, "need", need)
		http.Error(w, errNoRoom.Error(), http.StatusInsufficientStorage)
		return nil, false
	}
	return []string{"-c", fmt.Sprintf("receive.maxInputSize=%d", max(room/2, 1))}, true
}

// serveRPC streams a POST body into git --stateless-rpc and git's output
// back. Output is streamed (packs are large), so a failure after the first
// byte can only end the response early.
func (b *Bridge) serveRPC(w http.ResponseWriter, r *http.Request, rt route, dir, pk string, ann *RepoAnnouncement) {
	if r.ContentLength > b.opts.MaxRequestBytes {
		http.Error(w, errTooLarge.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var limit []string
	if rt.push() {
		var ok bool
		if limit, ok = b.pushRoom(w, 2*max(r.ContentLength, 0)); !ok {
			return
		}
	}
	body, err := b.requestBody(w, r)
	if err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	release, err := b.acquire(r.Context())
	if err != nil {
		busy(w, err)
		return
	}
	defer release()
	env := protocolEnv(r.Header.Get("Git-Protocol"))
	var sess *pushSession
	if rt.push() {
		sess = b.hooks.open(r.Context(), rt, dir, pk)
		defer sess.closeSession()
		env = append(env, sess.env()...)
	}
	out := &countingWriter{w: w}
	noCache(w)
	w.Header().Set("Content-Type", "application/x-"+rt.service+"-result")
	// receive-pack reports progress while it still reads the pack.
	_ = http.NewResponseController(w).EnableFullDuplex()
	err = b.runRPC(r.Context(), rt, dir, env, limit, body, out)
	if err != nil {
		b.rpcFailed(w, out, body, err, dir)
	}
	if sess != nil {
		b.afterPush(context.WithoutCancel(r.Context()), rt, dir, pk, ann, sess.applied())
	}
}

// runRPC runs the service over body, writing to out.
func (b *Bridge) runRPC(ctx context.Context, rt route, dir string, env, config []string, body io.Reader, out io.Writer) error {
	args := append(config, strings.TrimPrefix(rt.service, "git-"), "--stateless-rpc", dir)
	cmd, cancel := b.command(ctx, env, args...)
	defer cancel()
	errb := &capped{max: 4 << 10}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = body, out, errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// rpcFailed logs a failed run and, if nothing was sent yet, answers with a
// status: 413 when the body cap cut the input, 500 otherwise.
func (b *Bridge) rpcFailed(w http.ResponseWriter, out *countingWriter, body *limitedBody, err error, dir string) {
	b.log.Warn("git: rpc failed", "repo", dir, "err", err, "body_capped", body.tooLarge)
	if out.n > 0 {
		return
	}
	w.Header().Del("Content-Type")
	if body.tooLarge {
		http.Error(w, errTooLarge.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	http.Error(w, "git failed", http.StatusInternalServerError)
}

// requestBody returns the body, gunzipped when the client compressed it
// (git does for large negotiations), capped at MaxRequestBytes both before
// and after decoding, so a small gzip bomb cannot expand without bound.
func (b *Bridge) requestBody(w http.ResponseWriter, r *http.Request) (*limitedBody, error) {
	max := b.opts.MaxRequestBytes
	raw := http.MaxBytesReader(w, r.Body, max)
	switch strings.ToLower(r.Header.Get("Content-Encoding")) {
	case "", "identity":
		return &limitedBody{r: raw, left: max}, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, err
		}
		return &limitedBody{r: zr, left: max}, nil
	}
	return nil, errors.New("unsupported content encoding")
}

// limitedBody fails reads past its cap, remembering that it did.
type limitedBody struct {
	r        io.Reader
	left     int64
	tooLarge bool
}

// Read passes reads through until the cap, then fails with errTooLarge.
func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Probe for one more byte: exactly max bytes is allowed.
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.tooLarge = true
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	n, err := l.r.Read(p[:min(int64(len(p)), l.left)])
	l.left -= int64(n)
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		l.tooLarge = true
	}
	return n, err
}

// countingWriter counts the bytes written, so a failure can tell whether
// the status line has gone out.
type countingWriter struct {
	w io.Writer
	n int64
}

// Write forwards to the response and counts.
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// busy answers a request that got no process slot.
func busy(w http.ResponseWriter, err error) {
	if errors.Is(err, errBusy) {
		w.Header().Set("Retry-After", "10")
		http.Error(w, "git: server busy, retry later", http.StatusServiceUnavailable)
	}
	// Otherwise the client went away; there is nobody to answer.
}

func noCache(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	w.Header().Set("Pragma", "no-cache")
	w.Header().Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
}

// pktLine frames s as a git pkt-line.
func pktLine(s string) string {
	return fmt.Sprintf("%04x%s", len(s)+4, s)
}
