package triggers

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/nbd-wtf/go-nostr"

	"toolbus/signer"
)

// Data is what templates see.
type Data struct {
	// Trigger is the trigger's name.
	Trigger string
	// Event is the triggering event.
	Event EventData
	// Repo describes a 30618 push; nil for other kinds.
	Repo *RepoInfo
	// Mention is the text addressed to the worker in a message.
	Mention Mention
	// Worker is the target worker's pubkey (hex) and WorkerNPub its npub.
	Worker, WorkerNPub string
	ev                 *nostr.Event
}

// EventData is the triggering event's fields.
type EventData struct {
	ID, PubKey, NPub string
	Kind             int
	Content          string
	CreatedAt        int64
}

// Tag returns the first value of the event's first tag called name.
func (d *Data) Tag(name string) string {
	if t := d.ev.Tags.GetFirst([]string{name, ""}); t != nil {
		return (*t)[1]
	}
	return ""
}

// Tags returns the first value of every tag called name.
func (d *Data) Tags(name string) []string {
	var out []string
	for _, t := range d.ev.Tags {
		if len(t) > 1 && t[0] == name {
			out = append(out, t[1])
		}
	}
	return out
}

// newData builds the template data for ev sent to worker.
func newData(trig string, ev *nostr.Event, repo *RepoInfo, worker string) *Data {
	d := &Data{Trigger: trig, Repo: repo, Worker: worker, ev: ev,
		Event: EventData{ID: ev.ID, PubKey: ev.PubKey, NPub: signer.EncodeNPub(ev.PubKey),
			Kind: ev.Kind, Content: ev.Content, CreatedAt: int64(ev.CreatedAt)}}
	if worker != "" {
		d.WorkerNPub = signer.EncodeNPub(worker)
		d.Mention = mentionOf(ev.Content, d.WorkerNPub)
	}
	return d
}

// funcs are the template helpers. shq matters: event text, ref names and
// even branch names can hold shell metacharacters.
var funcs = template.FuncMap{
	"shq":   shellQuote,
	"json":  func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err },
	"trim":  strings.TrimSpace,
	"short": func(s string) string { return s[:min(len(s), 7)] },
	"npub":  signer.EncodeNPub,
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func parseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
}

func (t *trigger) compileTemplates(tc *TriggerConfig) error {
	var errs []error
	var err error
	if t.tool, err = parseTemplate("tool", tc.Tool); err != nil {
		errs = append(errs, err)
	}
	if tc.Arguments != nil && tc.ArgumentsJSON != "" {
		errs = append(errs, errors.New("want at most one of arguments and arguments_json"))
	}
	if tc.Arguments != nil {
		if t.args, err = compileArgs("arguments", tc.Arguments); err != nil {
			errs = append(errs, err)
		}
	}
	if t.argsJSON, err = parseTemplate("arguments_json", tc.ArgumentsJSON); err != nil {
		errs = append(errs, err)
	}
	if t.okMsg, err = parseTemplate("message.ok", tc.Message.OK); err != nil {
		errs = append(errs, err)
	}
	if t.failMsg, err = parseTemplate("message.fail", tc.Message.Fail); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// compileArgs mirrors v with every string replaced by its template.
func compileArgs(name string, v any) (any, error) {
	switch x := v.(type) {
	case string:
		return parseTemplate(name, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := compileArgs(name+"."+k, e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := compileArgs(fmt.Sprintf("%s[%d]", name, i), e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return v, nil // numbers and booleans pass through with their type
	}
}

// renderArgs executes the argument tree.
func renderArgs(node any, d *Data) (any, error) {
	switch x := node.(type) {
	case *template.Template:
		return execute(x, d)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			v, err := renderArgs(e, d)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, err := renderArgs(e, d)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	default:
		return node, nil
	}
}

func execute(tp *template.Template, d *Data) (string, error) {
	var b strings.Builder
	if err := tp.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// render fills the tool name and arguments from d.
func (t *trigger) render(d *Data) (string, map[string]any, error) {
	tool, err := execute(t.tool, d)
	if tool = strings.TrimSpace(tool); err == nil && tool == "" {
		err = errors.New("the tool name is empty")
	}
	if err == nil && len(t.cfg.AllowedTools) > 0 && !slices.Contains(t.cfg.AllowedTools, tool) {
		err = fmt.Errorf("tool %q is not in this trigger's allowed_tools", tool)
	}
	if err != nil {
		return "", nil, err
	}
	args := map[string]any{}
	if t.args != nil {
		v, err := renderArgs(t.args, d)
		if err != nil {
			return "", nil, err
		}
		args = v.(map[string]any)
	} else if text, err := execute(t.argsJSON, d); err != nil {
		return "", nil, err
	} else if text = strings.TrimSpace(text); text != "" {
		if err := json.Unmarshal([]byte(text), &args); err != nil || args == nil {
			return "", nil, fmt.Errorf("arguments_json is not a JSON object: %q", cut(text, 200))
		}
	}
	return tool, args, nil
}
