// Package testenv is the tests' one rule for a capability the machine may
// lack (user and network namespaces, mount, mknod, FIFOs, a tool that
// scripts/deps.sh installs): skip where it is missing, unless the run
// requires everything.
//
// `make test` (what CI runs, as root, where all of it works) sets
// MNOTE_REQUIRE_ALL=1, so there a missing capability fails the test
// instead of hiding it behind a skip. A plain `go test` skips.
package testenv

import (
	"os"
	"testing"
)

// RequireAllEnv names the variable that turns skips into failures.
const RequireAllEnv = "MNOTE_REQUIRE_ALL"

// Required reports whether every test must run (MNOTE_REQUIRE_ALL=1).
func Required() bool { return os.Getenv(RequireAllEnv) == "1" }

// SkipOrFail skips the test with reason, or fails it when Required.
func SkipOrFail(t testing.TB, reason string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (%s=1, as in `make test`: this must run here)", reason, RequireAllEnv)
	}
	t.Skip(reason)
}

// UnshareNet is the `unshare` option that gives a command a network
// namespace of its own (only loopback): "-n" for root, which needs no user
// namespace (a chroot refuses one), else "-rn" (a user namespace mapping
// the caller to root, then the network namespace).
func UnshareNet() string {
	if os.Geteuid() == 0 {
		return "-n"
	}
	return "-rn"
}
