package main

import (
	"fmt"
	"io"
	"runtime"

	"toolbus/relay"
)

func init() {
	register("version", "print the version", func(_ []string, stdout, _ io.Writer) int {
		fmt.Fprintf(stdout, "toolbus %s (%s, %s/%s)\n", relay.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	})
}
