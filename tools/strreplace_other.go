//go:build !unix

package tools

import "io/fs"

// keepOwner is a no-op where files have no Unix owner.
func keepOwner(fileSys, string, fs.FileInfo) {}
