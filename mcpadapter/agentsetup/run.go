package agentsetup

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Setup is one agent-setup invocation.
type Setup struct {
	Options
	Notes      []string // remarks on how Options were chosen, printed to stderr
	Write      bool     // write the entry into the client's config file
	Yes        bool     // write without asking on stdin (for scripts)
	ConfigPath string   // file to write; DefaultConfigPath(Client) if empty
}

// Run prints the config entry for s.Client, what is wrong with the key file
// if anything, and, when s.Write is set and the user agrees on stdin (or
// s.Yes), writes the entry into the client's config file; it ends with a
// trial prompt. Declining is not an error. Nothing it prints or writes
// holds a key: the key file is only ever stat'ed.
func Run(s Setup, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := s.Validate(); err != nil {
		return err
	}
	snippet, err := Snippet(s.Options)
	if err != nil {
		return err
	}
	for _, n := range s.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	keyAdvice := KeyFileAdvice(s.KeyFile)
	if keyAdvice != "" {
		fmt.Fprintf(stderr, "warning: %s\n", keyAdvice)
	}
	printEntry(stdout, s.Options, snippet, keyAdvice == "")
	if s.Write {
		if err := write(s, stdin, stdout); err != nil {
			return err
		}
	}
	printTrial(stdout, s.Options)
	return nil
}

// write plans the edit first, so a config that does not parse is refused
// before the user is asked anything, then asks, then applies it.
func write(s Setup, stdin io.Reader, stdout io.Writer) error {
	path := s.ConfigPath
	if path == "" {
		var err error
		if path, err = DefaultConfigPath(s.Client); err != nil {
			return err
		}
	}
	plan, err := PlanWrite(path, s.Options)
	if err != nil {
		return err
	}
	if !s.Yes {
		fmt.Fprintf(stdout, "\n%s\nWrite it? [y/N] ", describe(plan, s.Name))
		if !confirmed(stdin) {
			fmt.Fprintln(stdout, "Nothing written.")
			return nil
		}
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	if plan.Exists {
		fmt.Fprintf(stdout, "\nWrote the %q entry into %s (previous version saved as %s).\n", s.Name, plan.Path, plan.Backup())
	} else {
		fmt.Fprintf(stdout, "\nCreated %s (mode 0600) with the %q entry.\n", plan.Path, s.Name)
	}
	return nil
}

func describe(p *Plan, name string) string {
	switch {
	case !p.Exists:
		return fmt.Sprintf("This creates %s holding only the %q entry.", p.Path, name)
	case p.Replaces:
		return fmt.Sprintf("This replaces the existing %q entry in %s and changes nothing else\n(a backup goes to %s).", name, p.Path, p.Backup())
	}
	return fmt.Sprintf("This adds the %q entry to %s and changes nothing else\n(a backup goes to %s).", name, p.Path, p.Backup())
}

// confirmed reads one answer line; only y or yes (any case) agree, so an
// empty line, EOF or a closed stdin all mean no.
func confirmed(stdin io.Reader) bool {
	if stdin == nil {
		return false
	}
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
