package main_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/internal/testutil"
	"toolbus/signer"
)

// Soak parameters. The defaults are issue 8's: 60 s at 1,000 calls/s.
// Environment overrides, for quick or exploratory local runs only:
//
//	TOOLBUS_SOAK=10s             how long calls are issued (a Go duration)
//	TOOLBUS_SOAK_RATE=500        aggregate calls per second
//	TOOLBUS_SOAK_WRAP=gift       plaintext (default), gift or ephemeral
const (
	soakDefaultDuration = 60 * time.Second
	soakDefaultRate     = 1000
	soakCallers         = 16
	// soakCallTimeout is long on purpose: when the bus cannot keep up,
	// calls queue (at most soakMaxInFlight of them), and that shows as
	// latency in the log rather than as timeouts mistaken for lost results.
	soakCallTimeout = time.Minute
	// soakMaxInFlight bounds the calls in flight (see TestSoak), well below
	// the 4,096 messages the relay queues for one slow subscriber.
	soakMaxInFlight = 2000
)

// soakToken matches the per-call token that a result must echo.
var soakToken = regexp.MustCompile(`soak-[0-9]{7}`)

// soakTokenOf is call i's token.
func soakTokenOf(i int) string { return fmt.Sprintf("soak-%07d", i) }

// soakTokenIndex is the call number in a token soakToken matched.
func soakTokenIndex(tok string) (int, error) { return strconv.Atoi(strings.TrimPrefix(tok, "soak-")) }

// TestSoak runs a real `toolbus relay` and `toolbus worker` on loopback and
// issues tool calls from 16 member callers (bus.Client, one connection
// each) at a paced aggregate 1,000 calls/s for 60 s. Every call must get
// exactly one result, the one for its own request: none lost, none
// duplicated, none crossed with another call's. Besides the results
// CallTool returns, a spy on each caller's connection counts the distinct
// reply events per token, so a worker that answered a call twice is caught
// even though bus.Client hands the caller only the first answer. The test
// logs RSS and CPU use, the achieved rate and the latency (from when a
// call was due and from when it was sent); it asserts nothing about timing.
//
// The tool is `todo` with one item whose text is the call's token: it
// echoes its input in memory, so the load is on the bus (relay,
// signatures, routing, the worker's MCP sessions), not on the tool. Each
// reply renders, under the list's lock, the list its own call set, so it
// carries that call's token and no other; items are sent done, so no reply
// warns about (and names) an earlier call's item.
//
// Pacing: call i is due at start + i/rate. A late call is issued as soon as
// the issuer gets to it, never skipped, so a bus that cannot keep up shows
// in the log as issue lag and long latencies, not as a quietly lower rate.
// The issuer also waits while soakMaxInFlight calls are in flight. Without
// that bound an overloaded bus (a busy machine, `make test` running other
// packages beside this one) is overrun and calls are lost by design: once
// more calls wait for the worker than its connection buffers (4,096
// messages in the relay's outbound queue, as many in the worker's read
// queue), the relay drops it as a slow subscriber; the worker sends the
// replies it computed again after reconnecting, but the relay's mailbox
// replays at most tool_bus.mailbox_per_recipient (default 256) of the
// waiting calls to it. That is overload behaviour, not what this test is
// about. Issuing stops at the first call that fails, so a wedged bus ends
// the test within a call timeout.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rig := startSoak(ctx, t, soakParams(t))
	rig.warmUp()
	rig.logStart()
	cpu0 := readCPU(rig.pids())
	run := rig.issue(cpu0)
	// Replies still on their way to a spy would be duplicates: give them a
	// moment before counting.
	time.Sleep(500 * time.Millisecond)
	used := readCPU(rig.pids()).sub(cpu0)
	rig.logEnd()
	tally := rig.tally(run)
	rig.reportIssuing(run, tally)
	rig.reportFindings(run, tally, used)
	if planned := rig.plan.calls; int(run.issued.Load()) != planned || tally.ok() != planned || tally.faults() > 0 {
		t.Fatalf("soak: %d of %d calls got exactly their own result; see the counts above",
			tally.ok()-tally.toolErrors-tally.crossed, planned)
	}
}

// soakPlan is what the soak issues: calls at rate per second for dur.
type soakPlan struct {
	dur      time.Duration
	rate     int
	interval time.Duration // between two calls' due times
	calls    int           // how many are planned
	wrap     bus.WrapMode
	wrapName string
}

// due is when call i is due in a run that started at start.
func (p soakPlan) due(start time.Time, i int) time.Time {
	return start.Add(time.Duration(i) * p.interval)
}

// soakParams reads the soak's duration, rate and wrap mode.
func soakParams(t *testing.T) soakPlan {
	p := soakPlan{dur: soakDefaultDuration, rate: soakDefaultRate}
	if v := os.Getenv("TOOLBUS_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("TOOLBUS_SOAK=%q: want a positive duration such as 10s", v)
		}
		p.dur = d
	}
	if v := os.Getenv("TOOLBUS_SOAK_RATE"); v != "" {
		r, err := strconv.Atoi(v)
		if err != nil || r <= 0 || r > int(time.Second) {
			t.Fatalf("TOOLBUS_SOAK_RATE=%q: want calls per second", v)
		}
		p.rate = r
	}
	p.interval = time.Second / time.Duration(p.rate)
	p.calls = int(p.dur / p.interval)
	p.wrap, p.wrapName = soakWrap(t)
	return p
}

// soakWrap reads the wrap mode, and names it for the log.
func soakWrap(t *testing.T) (bus.WrapMode, string) {
	switch v := os.Getenv("TOOLBUS_SOAK_WRAP"); v {
	case "", "plaintext":
		return bus.WrapNone, "plaintext kind 25910"
	case "gift":
		return bus.WrapGift, "gift-wrapped kind 1059"
	case "ephemeral":
		return bus.WrapEphemeral, "gift-wrapped kind 21059"
	default:
		t.Fatalf("TOOLBUS_SOAK_WRAP=%q: want plaintext, gift or ephemeral", v)
	}
	return 0, ""
}

// soakRig is the bus under soak: a relay and a worker process, and the
// member callers' clients, each connection watched by the spy.
type soakRig struct {
	t         *testing.T
	ctx       context.Context
	plan      soakPlan
	worker    *signer.Local
	relay     *exec.Cmd
	workerCmd *exec.Cmd
	clients   []*bus.Client
	spy       *soakSpy
}

// startSoak starts the relay and the worker and connects the callers.
func startSoak(ctx context.Context, t *testing.T, plan soakPlan) *soakRig {
	r := &soakRig{t: t, ctx: ctx, plan: plan, worker: testutil.NewKey(t),
		spy: &soakSpy{counts: make([]int32, plan.calls), ids: map[string]bool{}}}
	callers := make([]*signer.Local, soakCallers)
	for i := range callers {
		callers[i] = testutil.NewKey(t)
	}
	addr := testutil.FreeAddr(t)
	url := "ws://" + addr
	r.relay = startRelayAt(t, addr, t.TempDir(), soakRelayConfig(r.worker, callers))
	r.workerCmd = startSoakWorker(t, url, r.worker)
	r.connect(url, callers)
	return r
}

// soakRelayConfig makes the worker and the callers members. The relay's
// per-author and per-IP event limits (everyone is on 127.0.0.1, and the
// worker alone publishes every reply) are raised far above the load;
// everything else is the default config (audit on).
func soakRelayConfig(worker *signer.Local, callers []*signer.Local) string {
	members := []string{fmt.Sprintf("%q", worker.PublicKey())}
	for _, c := range callers {
		members = append(members, fmt.Sprintf("%q", c.PublicKey()))
	}
	return fmt.Sprintf("[workspace]\nmembers = [%s]\n[limits]\n"+
		"events_per_second = 100000.0\nevents_burst = 100000\n"+
		"ip_events_per_second = 100000.0\nip_events_burst = 100000\n", strings.Join(members, ", "))
}

// startSoakWorker runs `toolbus worker` as key. Its per-caller quota
// (default 5 calls/s, burst 20) is raised, not switched off, so every call
// still goes through it.
func startSoakWorker(t *testing.T, url string, key *signer.Local) *exec.Cmd {
	cmd := exec.Command(testutil.Binary(t, "toolbus"), "worker", "--relay", url, "--workdir", t.TempDir(),
		"--quota", "100000", "--quota-burst", "100000")
	cmd.Env = append(os.Environ(), "NOSTR_PRIVATE_KEY="+key.NSec(), "XDG_CONFIG_HOME="+t.TempDir())
	waitForLine(t, cmd, "worker ready")
	return cmd
}

// connect gives each caller its own connection, with a client and the
// spy's subscription on it.
func (r *soakRig) connect(url string, callers []*signer.Local) {
	logger := slog.New(slog.NewTextHandler(testWriter{r.t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r.clients = make([]*bus.Client, len(callers))
	for i, key := range callers {
		conn, err := bus.Dial(r.ctx, url, &bus.ConnOptions{Signer: key, Logger: logger})
		if err != nil {
			r.t.Fatal(err)
		}
		r.t.Cleanup(func() { conn.Close() })
		opts := &bus.ClientOptions{Wrap: r.plan.wrap, Timeout: soakCallTimeout, Logger: logger}
		if r.clients[i], err = bus.NewClient(r.ctx, conn, key, opts); err != nil {
			r.t.Fatal(err)
		}
		if err := r.spy.watch(r.ctx, conn, key, r.worker.PublicKey()); err != nil {
			r.t.Fatal(err)
		}
	}
}

// todo calls the worker's todo tool through c with one done item, token.
func (r *soakRig) todo(c *bus.Client, token string) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(r.ctx, soakCallTimeout)
	defer cancel()
	return c.CallTool(ctx, r.worker.PublicKey(), "todo",
		map[string]any{"items": []map[string]any{{"text": token, "done": true}}})
}

// warmUp makes every caller's first call, which opens its session on the
// worker.
func (r *soakRig) warmUp() {
	for i, c := range r.clients {
		if res, err := r.todo(c, fmt.Sprintf("warm-%d", i)); err != nil || res.IsError {
			r.t.Fatalf("warm-up call of caller %d: %v %+v", i, err, res)
		}
	}
}

// pids are the relay's, the worker's and the test process's, in that
// order, as readCPU takes them.
func (r *soakRig) pids() [3]int {
	return [3]int{r.relay.Process.Pid, r.workerCmd.Process.Pid, os.Getpid()}
}

// logStart logs the plan, the RSS at the start and the machine's load.
func (r *soakRig) logStart() {
	p := r.plan
	relay, worker, self := procRSS(r.relay.Process.Pid), procRSS(r.workerCmd.Process.Pid), procRSS(os.Getpid())
	r.t.Logf("soak: %d calls at %d calls/s for %s from %d callers, %s, tool todo", p.calls, p.rate, p.dur, soakCallers, p.wrapName)
	r.t.Logf("soak: RSS at start: relay %s, worker %s (test process with the callers %s)", relay, worker, self)
	r.t.Logf("soak: %d CPUs, load average %s", runtime.NumCPU(), loadAvg())
}

// logEnd logs the RSS at the end, and the peak.
func (r *soakRig) logEnd() {
	relay, worker := r.relay.Process.Pid, r.workerCmd.Process.Pid
	r.t.Logf("soak: RSS at end:   relay %s, worker %s (test process with the callers %s)",
		procRSS(relay), procRSS(worker), procRSS(os.Getpid()))
	r.t.Logf("soak: peak RSS:     relay %s, worker %s", procHWM(relay), procHWM(worker))
}

// soakCall is what one call of the soak saw. Each call's goroutine writes
// only its own element.
type soakCall struct {
	sent, done time.Time // sent: when CallTool started
	err        error
	got        []string // the tokens in the result text
	isError    bool
	text       string // the result text, kept only for a tool error
}

// record keeps the tokens in res's text, and for a tool error the text.
func (c *soakCall) record(res *mcp.CallToolResult) {
	c.isError = res.IsError
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			c.got = append(c.got, soakToken.FindAllString(tc.Text, -1)...)
			if res.IsError {
				c.text += tc.Text
			}
		}
	}
}

// soakRun is one run of the soak: what each call saw, and how issuing
// went. The counters are read live by the progress log.
type soakRun struct {
	calls                       []soakCall
	start, issueEnd, end        time.Time
	issued, completed, inFlight atomic.Int64
	completedAtIssueEnd         int64
	peakInFlight                int64         // written by the issuer only
	maxLag                      time.Duration // of a call's issue behind its due time
	capWait                     time.Duration // waiting at soakMaxInFlight
	failed                      atomic.Bool   // a call got no result: stop issuing
	slots                       chan struct{} // one per call in flight
	wg                          sync.WaitGroup
}

// issue issues the planned calls, paced and capped in flight (see
// TestSoak), until one fails, and waits for them all to end.
func (r *soakRig) issue(cpu0 cpuSnapshot) *soakRun {
	run := &soakRun{calls: make([]soakCall, r.plan.calls), slots: make(chan struct{}, soakMaxInFlight)}
	progressDone := make(chan struct{})
	run.start = time.Now()
	go r.progress(run, cpu0, progressDone)
	for i := range r.plan.calls {
		if run.failed.Load() {
			break
		}
		run.waitTurn(r.plan.due(run.start, i))
		run.wg.Add(1)
		go r.call(run, i)
	}
	run.issueEnd = time.Now()
	run.completedAtIssueEnd = run.completed.Load()
	run.wg.Wait()
	run.end = time.Now()
	close(progressDone)
	return run
}

// waitTurn waits until due and for a free slot, then counts a call as
// issued and in flight.
func (run *soakRun) waitTurn(due time.Time) {
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
	select {
	case run.slots <- struct{}{}:
	default:
		waitFrom := time.Now()
		run.slots <- struct{}{}
		run.capWait += time.Since(waitFrom)
	}
	if lag := time.Since(due); lag > run.maxLag {
		run.maxLag = lag
	}
	run.issued.Add(1)
	if n := run.inFlight.Add(1); n > run.peakInFlight {
		run.peakInFlight = n
	}
}

// call makes call i from caller i mod soakCallers and records what it saw.
func (r *soakRig) call(run *soakRun, i int) {
	defer func() { <-run.slots; run.wg.Done() }()
	c := &run.calls[i]
	c.sent = time.Now()
	res, err := r.todo(r.clients[i%soakCallers], soakTokenOf(i))
	c.done = time.Now()
	run.inFlight.Add(-1)
	run.completed.Add(1)
	c.err = err
	if err != nil {
		run.failed.Store(true)
		return
	}
	c.record(res)
}

// progress logs every 5 s until done, to see a pile-up as it builds.
func (r *soakRig) progress(run *soakRun, cpu0 cpuSnapshot, done <-chan struct{}) {
	const every = 5 * time.Second
	tick := time.NewTicker(every)
	defer tick.Stop()
	last := cpu0
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			now := readCPU(r.pids())
			ours, others := now.sub(last).cores(every)
			last = now
			r.t.Logf("soak: %3.0fs issued %d completed %d in flight %d; RSS relay %s worker %s; "+
				"CPU cores used by the soak %.2f, by other processes %.2f",
				time.Since(run.start).Seconds(), run.issued.Load(), run.completed.Load(), run.inFlight.Load(),
				procRSS(r.relay.Process.Pid), procRSS(r.workerCmd.Process.Pid), ours, others)
		}
	}
}

// soakTally is what went wrong in a run, and the latencies of the calls
// that got a result.
type soakTally struct {
	failed     int // calls with no result (lost)
	toolErrors int // calls with a tool error
	crossed    int // calls whose result carries not just their own token
	unreturned int // tokens no result carried
	dupResults int // tokens two or more results carried
	noReply    int // tokens no reply event carried
	dupReplies int // tokens two or more distinct reply events carried
	strays     int // reply events with a token out of range
	problems   []string
	sinceDue   []time.Duration
	sinceSent  []time.Duration
}

// problem describes one, up to the first 10.
func (s *soakTally) problem(format string, args ...any) {
	if len(s.problems) < 10 {
		s.problems = append(s.problems, fmt.Sprintf(format, args...))
	}
}

// ok is how many calls got a result.
func (s *soakTally) ok() int { return len(s.sinceSent) }

// faults is how many things went wrong, of every kind.
func (s *soakTally) faults() int {
	return s.failed + s.toolErrors + s.crossed + s.unreturned + s.dupResults + s.dupReplies + s.noReply + s.strays
}

// tally checks, per call, exactly one result, its own token and no error;
// and per token, exactly one result returned and one reply event seen.
func (r *soakRig) tally(run *soakRun) *soakTally {
	s := &soakTally{}
	returned := s.checkCalls(run, r.plan)
	s.checkTokens(returned, r.spy)
	return s
}

// checkCalls tallies the issued calls, and counts per token the results
// that carried it.
func (s *soakTally) checkCalls(run *soakRun, plan soakPlan) (returned []int) {
	returned = make([]int, plan.calls)
	for i := range run.calls[:run.issued.Load()] {
		c := &run.calls[i]
		for _, tok := range c.got {
			if n, err := soakTokenIndex(tok); err == nil && n < plan.calls {
				returned[n]++
			}
		}
		switch {
		case c.err != nil:
			s.failed++
			s.problem("call %d (caller %d): %v", i, i%soakCallers, c.err)
			continue
		case c.isError:
			s.toolErrors++
			s.problem("call %d (caller %d): tool error %q", i, i%soakCallers, c.text)
		case len(c.got) != 1 || c.got[0] != soakTokenOf(i):
			s.crossed++
			s.problem("call %d: result carries tokens %v", i, c.got)
		}
		s.sinceDue = append(s.sinceDue, c.done.Sub(plan.due(run.start, i)))
		s.sinceSent = append(s.sinceSent, c.done.Sub(c.sent))
	}
	return returned
}

// checkTokens tallies, per token, the results returned and the reply
// events the spy saw.
func (s *soakTally) checkTokens(returned []int, spy *soakSpy) {
	spy.mu.Lock()
	defer spy.mu.Unlock()
	for i := range returned {
		switch {
		case returned[i] == 0:
			s.unreturned++
		case returned[i] > 1:
			s.dupResults++
			s.problem("token %d returned %d times", i, returned[i])
		}
		switch n := spy.counts[i]; {
		case n == 0:
			s.noReply++
		case n > 1:
			s.dupReplies++
			s.problem("token %d: %d distinct reply events", i, n)
		}
	}
	s.strays = spy.strays
}

// reportIssuing logs how issuing went, the achieved rate and the latency.
func (r *soakRig) reportIssuing(run *soakRun, s *soakTally) {
	p, elapsed := r.plan, run.end.Sub(run.start)
	r.t.Logf("soak: issued %d of %d planned in %s (max issue lag %s, %s waiting at %d in flight); "+
		"%d completed by the end of issuing, peak %d in flight",
		run.issued.Load(), p.calls, run.issueEnd.Sub(run.start).Round(time.Millisecond),
		run.maxLag.Round(time.Millisecond), run.capWait.Round(time.Millisecond), soakMaxInFlight,
		run.completedAtIssueEnd, run.peakInFlight)
	r.t.Logf("soak: %d results in %s = %.0f calls/s achieved (%d planned at %d calls/s)",
		s.ok(), elapsed.Round(time.Millisecond), float64(s.ok())/elapsed.Seconds(), p.calls, p.rate)
	r.t.Logf("soak: latency from due: p50 %s p99 %s max %s; from sent: p50 %s p99 %s max %s",
		pct(s.sinceDue, 50), pct(s.sinceDue, 99), pct(s.sinceDue, 100),
		pct(s.sinceSent, 50), pct(s.sinceSent, 99), pct(s.sinceSent, 100))
}

// reportFindings logs what went wrong, the CPU time used, and the first
// problems.
func (r *soakRig) reportFindings(run *soakRun, s *soakTally, used cpuSnapshot) {
	r.t.Logf("soak: calls with no result (lost) %d, with a tool error %d, with a wrong token %d; "+
		"tokens never returned %d, returned twice or more (duplicated) %d; "+
		"worker reply events: tokens with none %d, with two or more %d, out of range %d",
		s.failed, s.toolErrors, s.crossed, s.unreturned, s.dupResults, s.noReply, s.dupReplies, s.strays)
	ours, others := used.cores(run.end.Sub(run.start))
	r.t.Logf("soak: CPU time: relay %s, worker %s, test process %s = %.2f ms per call; "+
		"cores used on average by the soak %.2f, by other processes %.2f; load average now %s",
		used.procs[0], used.procs[1], used.procs[2], float64(used.ours().Microseconds())/1000/float64(max(s.ok(), 1)),
		ours, others, loadAvg())
	for _, p := range s.problems {
		r.t.Log("soak: " + p)
	}
}

// soakSpy counts, per token, the distinct reply events the worker sent to
// the callers.
type soakSpy struct {
	mu     sync.Mutex
	counts []int32
	ids    map[string]bool // inner reply event ids seen
	strays int             // soak replies whose token is out of range
}

// watch subscribes on conn to the worker's replies addressed to key.
func (s *soakSpy) watch(ctx context.Context, conn *bus.Conn, key *signer.Local, worker string) error {
	since := nostr.Now() - 2
	filters := func() nostr.Filters {
		return nostr.Filters{{Kinds: []int{bus.KindMessage, bus.KindGiftWrap, bus.KindEphemeralGiftWrap},
			Tags: nostr.TagMap{"p": {key.PublicKey()}}, Since: &since}}
	}
	sub, err := conn.Subscribe(ctx, filters, func(ev *nostr.Event) { s.onEvent(key, worker, ev) }, nil)
	if err != nil {
		return err
	}
	select {
	case <-sub.EOSE():
		return nil
	case <-sub.Done():
		return sub.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// onEvent counts ev if it is a soak call's reply from the worker, once
// per inner event id.
func (s *soakSpy) onEvent(key *signer.Local, worker string, ev *nostr.Event) {
	tok, id := soakReply(key, worker, ev)
	if tok == "" {
		return
	}
	n, _ := soakTokenIndex(tok)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return // the same reply delivered again (a replay): not a second answer
	}
	s.ids[id] = true
	if n >= len(s.counts) {
		s.strays++
		return
	}
	s.counts[n]++
}

// soakReply is the token and the inner event id of ev if ev is a reply
// from the worker to a soak call, or "" for anything else (a warm-up
// call's reply included).
func soakReply(key *signer.Local, worker string, ev *nostr.Event) (tok, id string) {
	inner := ev
	if bus.IsWrapKind(ev.Kind) {
		var err error
		if inner, err = bus.Unwrap(context.Background(), key, ev); err != nil {
			return "", ""
		}
	}
	if inner.Kind != bus.KindMessage || inner.PubKey != worker {
		return "", ""
	}
	msg, err := bus.Decode(inner)
	if err != nil {
		return "", ""
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return "", ""
	}
	return soakToken.FindString(string(resp.Result)), inner.ID
}

// pct is the p-th percentile of ds (p = 100: the maximum); ds is sorted in
// place.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := (len(ds)*p+99)/100 - 1
	return ds[max(i, 0)].Round(100 * time.Microsecond)
}
