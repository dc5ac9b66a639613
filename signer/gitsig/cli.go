package gitsig

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"toolbus/signer"
)

// prog prefixes every human-readable line, the way gpg prefixes "gpg:".
const prog = "git-sign-nostr"

const usage = `usage: git-sign-nostr --status-fd=N -bsau KEY            sign stdin
       git-sign-nostr --status-fd=N --verify SIGFILE [-|FILE] verify
For git: git config gpg.format x509; git config gpg.x509.program git-sign-nostr
The key comes from NOSTR_PRIVATE_KEY, else BUZZ_PRIVATE_KEY, else the file named
by git config nostr.keyfile.
`

// Run is the git signing program: gpg's command line and status protocol as
// git's gpg.x509.program speaks it. args exclude the program name. Status
// lines go to fd 1 (stdout), fd 2 (stderr, also the default) or any other
// descriptor statusFD opens (nil: none can be). It returns the exit code:
// 0 signed or verified, 1 refused or failed, 2 usage error.
//
// Unknown arguments are ignored, so that options a future git passes do not
// break signing.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, statusFD func(int) (io.Writer, error)) int {
	// The key must leave the environment before `git config` runs as a child.
	signer.TakeEnv()
	c := &cli{opts: parseArgs(args), stdin: stdin, stdout: stdout, stderr: stderr,
		config: gitConfig, now: time.Now, load: loadKey}
	return c.run(statusFD)
}

// cli is one invocation. config, now and load are fields so that tests can
// run it without git, a clock or a key file.
type cli struct {
	opts           options
	stdin          io.Reader
	stdout, stderr io.Writer
	status         io.Writer
	config         func(key string) string
	now            func() time.Time
	load           func(keyFile string) (signer.Signer, error)
}

// options is the parsed command line.
type options struct {
	statusFD     int // -1 when not given
	sign, verify bool
	help         bool
	user         string   // -u KEY
	files        []string // positional: signature file, then payload file
}

func (c *cli) run(statusFD func(int) (io.Writer, error)) int {
	o := c.opts
	switch {
	case o.help:
		fmt.Fprint(c.stdout, usage)
		return 0
	case o.sign == o.verify, o.verify && len(o.files) == 0:
		fmt.Fprint(c.stderr, usage)
		return 2
	}
	c.status = c.openStatus(statusFD)
	if o.sign {
		return c.sign(context.Background())
	}
	return c.verify()
}

// parseArgs reads the subset of gpg's options git uses. Anything else is
// skipped rather than refused, as NIP-GS asks.
func parseArgs(args []string) options {
	o := options{statusFD: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--status-fd":
			o.statusFD = fdNumber(next())
		case strings.HasPrefix(a, "--status-fd="):
			o.statusFD = fdNumber(strings.TrimPrefix(a, "--status-fd="))
		case a == "--verify":
			o.verify = true
		case a == "--local-user":
			o.user = next()
		case strings.HasPrefix(a, "--local-user="):
			o.user = strings.TrimPrefix(a, "--local-user=")
		case a == "-h" || a == "--help":
			o.help = true
		case a == "-" || !strings.HasPrefix(a, "-"):
			o.files = append(o.files, a)
		case !strings.HasPrefix(a, "--"):
			o.shortCluster(a[1:], next)
		}
	}
	return o
}

// shortCluster handles gpg short options bundled as git passes them
// ("-bsau KEY"): b detach, s sign, a armor, u user (value attached or next).
// A cluster with any other letter is an unknown option and is ignored.
func (o *options) shortCluster(body string, next func() string) {
	letters, value, hasU := strings.Cut(body, "u")
	if strings.Trim(letters, "bsa") != "" {
		return
	}
	if strings.ContainsAny(letters, "bs") {
		o.sign = true
	}
	if hasU {
		if value == "" {
			value = next()
		}
		o.user = value
	}
}

// fdNumber parses a --status-fd value; anything unusable means "not given",
// which falls back to stderr.
func fdNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// openStatus picks the writer for status lines. An unusable descriptor
// loses the status lines but not the operation, as NIP-GS says; git then
// reports the missing SIG_CREATED or GOODSIG itself.
func (c *cli) openStatus(statusFD func(int) (io.Writer, error)) io.Writer {
	switch fd := c.opts.statusFD; fd {
	case -1, 2:
		return c.stderr
	case 1:
		return c.stdout
	default:
		if statusFD != nil {
			if w, err := statusFD(fd); err == nil {
				return w
			}
		}
		c.warnf("status fd %d is not writable; status lines are dropped", fd)
		return io.Discard
	}
}

// statusf writes one "[GNUPG:] " status line. A failed write is not
// reported: git notices the missing line and fails on its own.
func (c *cli) statusf(format string, args ...any) {
	fmt.Fprintf(c.status, "[GNUPG:] "+format+"\n", args...)
}

// warnf writes a human-readable line to stderr. For verification this is
// what `git log --show-signature` and `git verify-commit` display.
func (c *cli) warnf(format string, args ...any) {
	fmt.Fprintf(c.stderr, prog+": "+format+"\n", args...)
}
