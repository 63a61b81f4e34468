// Package version holds herd's version, stamped at build time with
// -ldflags "-X github.com/herd-sh/herd/internal/version.Version=v1.2.3".
package version

import "runtime/debug"

// Version is herd's version; "dev" for a plain `go build`.
var Version = "dev"

// String returns the version, falling back to the module version recorded
// by `go install module@version`.
func String() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}
