package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"toolbus/signer"
)

// The git suite pushes a generated history to the relay's git bridge and
// clones it back with the real git binary, authenticated by NIP-98 through
// `toolbus git credential` as a member's checkout is, against the same push
// and clone over file://. Both clones read a repository that received the
// same push, so that they serve the same pack.

// gitFiles is how many files the generated history edits in turn.
const gitFiles = 200

// gitTimeout bounds one git command of the benchmark.
const gitTimeout = 2 * time.Minute

// gitEnv isolates git from the machine's configuration. key, when set, is
// what the credential helper signs with.
func gitEnv(home string, key *signer.Local) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}
	if key != nil {
		env = append(env, signer.EnvVar+"="+key.NSec())
	}
	return env
}

// gitRun runs git with args in dir and returns its combined output.
func gitRun(ctx context.Context, env []string, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// generateRepo creates a bare repository at dir whose main branch has
// commits commits, each changing one of gitFiles files by a line, written
// with git fast-import in one stream.
func generateRepo(ctx context.Context, env []string, dir string, commits int) error {
	if _, err := gitRun(ctx, env, "", "init", "-q", "--bare", "--initial-branch=main", dir); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out := &tail{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	werr := writeHistory(in, commits)
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w\n%s", err, out)
	}
	return werr
}

// writeHistory writes the fast-import stream of generateRepo.
func writeHistory(f io.Writer, commits int) error {
	w := bufio.NewWriterSize(f, 1<<20)
	files := make([][]byte, gitFiles)
	const epoch = 1_767_225_600 // 2026-01-01
	for i := 1; i <= commits; i++ {
		k := i % gitFiles
		files[k] = fmt.Appendf(files[k], "file %d, change %d\n", k, i)
		msg := fmt.Sprintf("change %d to file %d\n", i, k)
		when := strconv.Itoa(epoch+60*i) + " +0000"
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\n", i)
		fmt.Fprintf(w, "author Bench <bench@example.com> %s\ncommitter Bench <bench@example.com> %s\n", when, when)
		fmt.Fprintf(w, "data %d\n%s", len(msg), msg)
		fmt.Fprintf(w, "M 100644 inline src/file%03d.txt\ndata %d\n", k, len(files[k]))
		w.Write(files[k])
		w.WriteByte('\n')
	}
	w.WriteString("done\n")
	return w.Flush()
}

// commitCount is the number of commits reachable from rev in the
// repository at dir.
func commitCount(ctx context.Context, env []string, dir, rev string) (int, error) {
	out, err := gitRun(ctx, env, dir, "rev-list", "--count", rev)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// gitBench is the state of one run of the git suite: the generated
// repository, cached in a temporary directory until the last round.
type gitBench struct {
	commits int
	dir     string // everything of the run
	src     string // the generated bare repository
	home    string
	cred    string // the credential helper, a link to the toolbus binary
	owner   *signer.Local
	round   int
}

func gitWorkload(bc *busCrew, dz directSizes) directWorkload {
	g := &gitBench{commits: dz.commits, owner: bc.callers[2]}
	return directWorkload{
		name: "git",
		metrics: []metric{
			{name: "git_clone", unit: "s", better: lower, sample: "clone", floor: "clone_direct", stat: pct(50)},
			{name: "git_push", unit: "s", better: lower, sample: "push", floor: "push_direct", stat: pct(50)},
		},
		rounds:  dz.gitRounds,
		prepare: g.prepare,
		cleanup: func() { os.RemoveAll(g.dir) },
		measure: func(ctx context.Context, _ string, r live) (outcome, error) { return g.measure(ctx, r.url) },
	}
}

// prepare generates the repository and links the credential helper: git
// runs `git-credential-nostr get`, which the toolbus binary answers when
// called by that name.
func (g *gitBench) prepare(exe string) (err error) {
	if g.dir, err = os.MkdirTemp("", "toolbus-bench-git-"); err != nil {
		return err
	}
	g.src, g.home = filepath.Join(g.dir, "src.git"), filepath.Join(g.dir, "home")
	if err := os.Mkdir(g.home, 0o700); err != nil {
		return err
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	g.cred = filepath.Join(g.dir, "git-credential-nostr")
	if err := os.Symlink(exe, g.cred); err != nil {
		return err
	}
	return generateRepo(context.Background(), gitEnv(g.home, nil), g.src, g.commits)
}

// git runs git as the owner, with the credential helper configured as
// `toolbus git setup` does, returning how long it took.
func (g *gitBench) git(ctx context.Context, dir string, args ...string) (time.Duration, error) {
	cfg := []string{"-c", "credential.helper=", "-c", "credential.helper=" + g.cred,
		"-c", "credential.useHttpPath=true"}
	start := time.Now()
	_, err := gitRun(ctx, gitEnv(g.home, g.owner), dir, append(cfg, args...)...)
	return time.Since(start), err
}

// gitStep is one timed git command, filed under kind in seconds.
type gitStep struct {
	kind string
	dir  string
	args []string
}

func (g *gitBench) measure(ctx context.Context, url string) (outcome, error) {
	g.round++
	rd, err := os.MkdirTemp(g.dir, "round-")
	if err != nil {
		return outcome{}, err
	}
	defer os.RemoveAll(rd)
	direct := filepath.Join(rd, "direct.git")
	if _, err := gitRun(ctx, gitEnv(g.home, nil), rd, "init", "-q", "--bare", "--initial-branch=main", direct); err != nil {
		return outcome{}, err
	}
	remote := strings.Replace(url, "ws://", "http://", 1) + "/git/" + g.owner.NPub() + "/bench-" + strconv.Itoa(g.round) + ".git"
	pushes := []gitStep{
		{kind: "push", dir: g.src, args: []string{"push", "-q", remote, "main"}},
		{kind: "push_direct", dir: g.src, args: []string{"push", "-q", "file://" + direct, "main"}},
	}
	clones := []gitStep{
		{kind: "clone", dir: rd, args: []string{"clone", "-q", remote, filepath.Join(rd, "clone")}},
		{kind: "clone_direct", dir: rd, args: []string{"clone", "-q", "file://" + direct, filepath.Join(rd, "clone-direct")}},
	}
	o := outcome{samples: map[string][]float64{}}
	for _, steps := range [][]gitStep{pushes, clones} {
		if g.round%2 == 0 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, s := range steps {
			d, err := g.git(ctx, s.dir, s.args...)
			if err != nil {
				return outcome{}, fmt.Errorf("%s: %w", s.kind, err)
			}
			o.samples[s.kind] = append(o.samples[s.kind], d.Seconds())
		}
	}
	for _, c := range []string{"clone", "clone-direct"} {
		n, err := commitCount(ctx, gitEnv(g.home, nil), filepath.Join(rd, c), "HEAD")
		if err != nil || n != g.commits {
			o.failures = append(o.failures, fmt.Sprintf("git: %s has %d commits, want %d (%v)", c, n, g.commits, err))
		}
	}
	return o, ctx.Err()
}

// gitNotes qualify the git suite's numbers.
func gitNotes(dz directSizes) []string {
	quick := ""
	if dz.commits < 10_000 {
		quick = " (quick: fewer than the 10,000 of a full run)"
	}
	return []string{
		"git: toolbus = real git over smart HTTP to the relay's git bridge (/git/<npub>/<repo>.git), authenticated by NIP-98 through `toolbus git credential` (git runs it after the first 401); the khatru column is the direct path here: the same git command over file://",
		"git: git_push = push of the whole history to a new repository on the bridge (created on push; pre- and post-receive hooks and the state event included) vs to a fresh bare repository over file://; git_clone = clone of that bridge repository vs of the file:// one, which received the same push and so serves the same pack",
		fmt.Sprintf("git: the history is %d commits%s, each changing one line of one of %d files, generated once per run with git fast-import; %d rounds, each on a fresh relay, alternating which path goes first; medians of the rounds", dz.commits, quick, gitFiles, dz.gitRounds),
	}
}
