package triggers

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/bus"
	"toolbus/signer"
)

// Placeholders accepted in filter authors and p.
const (
	placeRelay  = "$relay"
	placeSelf   = "$self"
	placeWorker = "$worker"
)

// reply says where a trigger's message goes.
type reply struct {
	thread  bool   // the triggering event's thread, in its channel
	repo    bool   // the channel bound to the pushed repository
	channel string // a named channel
}

// trigger is a compiled TriggerConfig.
type trigger struct {
	cfg      *TriggerConfig
	name     string
	filter   nostr.Filter // placeholders still unresolved; no since
	workerPK string       // "" until resolved for worker_name
	tool     *template.Template
	args     any // argument tree with *template.Template leaves
	argsJSON *template.Template
	okMsg    *template.Template
	failMsg  *template.Template
	reply    reply
	queue    *queue
	start    nostr.Timestamp // first event time this trigger handles
}

// compile checks tc and prepares its templates.
func compile(tc *TriggerConfig) (*trigger, error) {
	t := &trigger{cfg: tc, name: tc.Name, queue: newQueue()}
	var errs []error
	if !nameRE.MatchString(tc.Name) {
		errs = append(errs, fmt.Errorf("name: want 1-64 of A-Z a-z 0-9 . _ -, got %q", tc.Name))
	}
	errs = append(errs, t.compileFilter(&tc.Filter), t.compileTarget(tc), t.compileTemplates(tc))
	if err := t.compileReply(tc.Reply); err != nil {
		errs = append(errs, err)
	}
	if tc.MaxAttempts < 1 || tc.MaxAttempts > 100 {
		errs = append(errs, fmt.Errorf("max_attempts: want 1 to 100, got %d", tc.MaxAttempts))
	}
	if tc.TailLines < 1 || tc.TailLines > 200 {
		errs = append(errs, fmt.Errorf("tail_lines: want 1 to 200, got %d", tc.TailLines))
	}
	return t, errors.Join(errs...)
}

func (t *trigger) compileFilter(fc *FilterConfig) error {
	var errs []error
	if len(fc.Kinds) == 0 {
		errs = append(errs, errors.New("filter.kinds: required"))
	}
	for _, k := range fc.Kinds {
		if bus.IsBusKind(k) {
			errs = append(errs, fmt.Errorf("filter.kinds: %d is tool-bus traffic, not a trigger event", k))
		}
	}
	if len(fc.Refs) > 0 && !slices.Equal(fc.Kinds, []int{nostr.KindRepositoryState}) {
		errs = append(errs, errors.New("filter.refs: only with kinds = [30618]"))
	}
	for _, p := range fc.Refs {
		if err := checkRefPattern(p); err != nil {
			errs = append(errs, err)
		}
	}
	f := nostr.Filter{Kinds: fc.Kinds, Tags: nostr.TagMap{}}
	var err error
	if f.Authors, err = keyList("filter.authors", fc.Authors); err != nil {
		errs = append(errs, err)
	}
	if len(f.Authors) == 0 && slices.Contains(fc.Kinds, nostr.KindRepositoryState) {
		// Only the relay's state events tell the truth about pushes; a
		// member could publish a 30618 of their own.
		f.Authors = []string{placeRelay}
	}
	p, err := keyList("filter.p", fc.P)
	errs = append(errs, err)
	for name, vals := range map[string][]string{"p": p, "h": fc.H, "a": normalAddrs(fc.A), "d": normalDs(fc.D)} {
		if len(vals) > 0 {
			f.Tags[name] = vals
		}
	}
	t.filter = f
	return errors.Join(errs...)
}

// keyList parses pubkeys to hex, keeping placeholders.
func keyList(field string, in []string) ([]string, error) {
	var out []string
	for _, v := range in {
		if v == placeRelay || v == placeSelf || v == placeWorker {
			out = append(out, v)
			continue
		}
		pk, err := signer.ParsePubKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", field, v, err)
		}
		out = append(out, pk)
	}
	return out, nil
}

// normalAddrs turns "30617:<npub>:<repo>" into the hex form tags carry.
func normalAddrs(in []string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = v
		if parts := strings.SplitN(v, ":", 3); len(parts) == 3 {
			if pk, err := signer.ParsePubKey(parts[1]); err == nil {
				out[i] = parts[0] + ":" + pk + ":" + parts[2]
			}
		}
	}
	return out
}

// normalDs turns "<npub>/<repo>" (a 30618's d) into the hex form.
func normalDs(in []string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = v
		if owner, repo, ok := strings.Cut(v, "/"); ok {
			if pk, err := signer.ParsePubKey(owner); err == nil {
				out[i] = pk + "/" + repo
			}
		}
	}
	return out
}

func (t *trigger) compileTarget(tc *TriggerConfig) error {
	switch {
	case (tc.Worker == "") == (tc.WorkerName == ""):
		return errors.New("want exactly one of worker and worker_name")
	case tc.Worker != "":
		pk, err := signer.ParsePubKey(tc.Worker)
		if err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		t.workerPK = pk
	}
	if strings.TrimSpace(tc.Tool) == "" {
		return errors.New("tool: required")
	}
	return nil
}

func (t *trigger) compileReply(r string) error {
	switch {
	case r == "thread":
		t.reply.thread = true
	case r == "repo-channel":
		if !slices.Equal(t.cfg.Filter.Kinds, []int{nostr.KindRepositoryState}) {
			return errors.New(`reply: "repo-channel" needs kinds = [30618]`)
		}
		t.reply.repo = true
	case strings.HasPrefix(r, "channel:") && len(r) > len("channel:"):
		t.reply.channel = strings.TrimPrefix(r, "channel:")
	default:
		return fmt.Errorf(`reply: want "thread", "channel:<id>" or "repo-channel", got %q`, r)
	}
	return nil
}

// filterFor resolves the placeholders of the trigger's filter.
func (t *trigger) filterFor(relayPK, self string) nostr.Filter {
	f := t.filter
	subst := func(vals []string) []string {
		if len(vals) == 0 {
			return nil // an empty, non-nil list would match nothing
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			switch v {
			case placeRelay:
				out[i] = relayPK
			case placeSelf:
				out[i] = self
			case placeWorker:
				// Resolved before the subscription starts and never
				// changed after: only read when the filter names it.
				out[i] = t.workerPK
			default:
				out[i] = v
			}
		}
		return out
	}
	f.Authors = subst(f.Authors)
	f.Tags = nostr.TagMap{}
	for k, v := range t.filter.Tags {
		f.Tags[k] = subst(v)
	}
	return f
}

// uses reports whether the filter names a placeholder.
func (t *trigger) uses(place string) bool {
	return slices.Contains(t.filter.Authors, place) || slices.Contains(t.filter.Tags["p"], place)
}
