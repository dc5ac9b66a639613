// Command hooktest stands in for `toolbus git hook <name>` in gitbridge's
// tests, so they do not depend on the toolbus command being wired up.
package main

import (
	"fmt"
	"os"

	"toolbus/gitbridge"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] != "git" || os.Args[2] != "hook" {
		fmt.Fprintln(os.Stderr, "usage: hooktest git hook <name>")
		os.Exit(2)
	}
	os.Exit(gitbridge.RunHook(os.Args[3], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
