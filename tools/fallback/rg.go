package fallback

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// rgOpts is the part of ripgrep's command line the fallback implements.
type rgOpts struct {
	patterns  []string
	paths     []string
	globs     []globRule
	types     []globRule // -t/-T, checked separately: a file must pass both
	fixed     bool       // -F: patterns are literal strings
	ignore    bool       // -i
	smart     bool       // -S: ignore case unless a pattern has an upper-case letter
	word      bool       // -w
	numbers   bool       // -n (ripgrep's default off a terminal is no numbers)
	onlyNames bool       // -l
	listFiles bool       // --files
	hidden    bool       // --hidden
	before    int        // -B / -C
	after     int        // -A / -C
}

// rgSupported is printed after an unsupported flag, so the model can
// rephrase its call instead of guessing.
const rgSupported = "supported: -n -N -i -s -S -l -F -w -e PAT -g GLOB -t/-T TYPE -C/-A/-B NUM --files --hidden --no-heading --color"

// rgTypes are the file types -t and -T know, a common subset of ripgrep's.
var rgTypes = map[string][]string{
	"go": {"*.go"}, "py": {"*.py", "*.pyi"}, "js": {"*.js", "*.mjs", "*.cjs", "*.jsx"},
	"ts": {"*.ts", "*.tsx", "*.mts", "*.cts"}, "rust": {"*.rs"}, "c": {"*.c", "*.h"},
	"cpp": {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"}, "java": {"*.java"},
	"ruby": {"*.rb"}, "sh": {"*.sh", "*.bash"}, "md": {"*.md", "*.markdown"},
	"json": {"*.json"}, "yaml": {"*.yaml", "*.yml"}, "toml": {"*.toml"},
	"html": {"*.html", "*.htm"}, "css": {"*.css", "*.scss"}, "sql": {"*.sql"},
}

// rgBool maps the boolean short flags to the option they set.
var rgBool = map[byte]func(o *rgOpts){
	'n': func(o *rgOpts) { o.numbers = true },
	'N': func(o *rgOpts) { o.numbers = false },
	'i': func(o *rgOpts) { o.ignore, o.smart = true, false },
	's': func(o *rgOpts) { o.ignore, o.smart = false, false },
	'S': func(o *rgOpts) { o.smart, o.ignore = true, false },
	'l': func(o *rgOpts) { o.onlyNames = true },
	'F': func(o *rgOpts) { o.fixed = true },
	'w': func(o *rgOpts) { o.word = true },
}

// rgLong maps long flags to their short equivalent; "" marks a flag that
// changes nothing here because output never goes to a terminal.
var rgLong = map[string]string{
	"line-number": "n", "no-line-number": "N", "ignore-case": "i",
	"case-sensitive": "s", "smart-case": "S", "files-with-matches": "l",
	"fixed-strings": "F", "word-regexp": "w", "regexp": "e", "glob": "g",
	"context": "C", "after-context": "A", "before-context": "B", "type": "t", "type-not": "T",
	"files": "files", "hidden": "hidden", "no-heading": "", "color": "=", "colour": "=",
}

// parseRg parses args the way ripgrep does for the supported subset:
// flags may follow the pattern, short flags may be bundled (-in), and a
// flag's value may be attached (-C2, --glob=*.go) or the next argument.
func parseRg(args []string) (*rgOpts, error) {
	o := &rgOpts{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			positional = append(positional, a)
		case strings.HasPrefix(a, "--"):
			n, err := o.long(a, args[i+1:])
			if err != nil {
				return nil, err
			}
			i += n
		default:
			n, err := o.short(a, args[i+1:])
			if err != nil {
				return nil, err
			}
			i += n
		}
	}
	if !o.listFiles && len(o.patterns) == 0 {
		if len(positional) == 0 {
			return nil, fmt.Errorf("no pattern given (fallback rg)")
		}
		o.patterns, positional = positional[:1], positional[1:]
	}
	o.paths = positional
	return o, nil
}

// long handles one --flag[=value]; it returns how many following
// arguments it consumed.
func (o *rgOpts) long(a string, rest []string) (int, error) {
	name, val, hasVal := strings.Cut(a[2:], "=")
	short, ok := rgLong[name]
	switch {
	case !ok:
		return 0, unsupported(a)
	case short == "":
		return 0, nil
	case short == "files":
		o.listFiles = true
		return 0, nil
	case short == "hidden":
		o.hidden = true
		return 0, nil
	case short == "=" || strings.Contains("egtTCAB", short):
		if hasVal {
			return 0, o.value(short, val)
		}
		if len(rest) == 0 {
			return 0, fmt.Errorf("flag %s needs a value (fallback rg)", a)
		}
		return 1, o.value(short, rest[0])
	}
	rgBool[short[0]](o)
	return 0, nil
}

// short handles a bundle of short flags such as -inC2; it returns how many
// following arguments it consumed.
func (o *rgOpts) short(a string, rest []string) (int, error) {
	for j := 1; j < len(a); j++ {
		c := a[j]
		if set, ok := rgBool[c]; ok {
			set(o)
			continue
		}
		if !strings.ContainsRune("egtTCAB", rune(c)) {
			return 0, unsupported("-" + string(c))
		}
		if j+1 < len(a) {
			return 0, o.value(string(c), a[j+1:])
		}
		if len(rest) == 0 {
			return 0, fmt.Errorf("flag -%c needs a value (fallback rg)", c)
		}
		return 1, o.value(string(c), rest[0])
	}
	return 0, nil
}

// value applies a flag that takes a value.
func (o *rgOpts) value(flag, v string) error {
	switch flag {
	case "=": // --color: no colours are ever written
		return nil
	case "e":
		o.patterns = append(o.patterns, v)
		return nil
	case "g":
		g, err := parseGlob(v)
		if err != nil {
			return err
		}
		o.globs = append(o.globs, g)
		return nil
	case "t", "T":
		return o.fileType(v, flag == "T")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("flag -%s needs a non-negative number, got %q (fallback rg)", flag, v)
	}
	if flag != "A" {
		o.before = n
	}
	if flag != "B" {
		o.after = n
	}
	return nil
}

// fileType adds the globs of a -t (include) or -T (exclude) type.
func (o *rgOpts) fileType(name string, exclude bool) error {
	globs, ok := rgTypes[name]
	if !ok {
		return fmt.Errorf("unknown file type %q (fallback rg knows go py js ts rust c cpp java ruby sh md json yaml toml html css sql)", name)
	}
	for _, g := range globs {
		r, _ := parseGlob(g)
		r.exclude = exclude
		o.types = append(o.types, r)
	}
	return nil
}

// unsupported is the error for a flag the fallback does not implement.
func unsupported(flag string) error {
	return fmt.Errorf("unsupported flag %s (fallback rg)\nrg: %s", flag, rgSupported)
}

// regexp compiles the patterns into one expression, applying -F, -w, -i
// and -S the way ripgrep does.
func (o *rgOpts) regexp() (*regexp.Regexp, error) {
	alts := make([]string, len(o.patterns))
	upper := false
	for i, p := range o.patterns {
		if o.fixed {
			p = regexp.QuoteMeta(p)
		}
		alts[i] = "(?:" + p + ")"
		upper = upper || strings.IndexFunc(p, unicode.IsUpper) >= 0
	}
	expr := strings.Join(alts, "|")
	if o.word {
		expr = `\b(?:` + expr + `)\b`
	}
	if o.ignore || (o.smart && !upper) {
		expr = "(?i)" + expr
	}
	return regexp.Compile(expr)
}
