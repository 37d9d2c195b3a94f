// Package pgtest starts a throwaway PostgreSQL server in a temporary
// folder, for the control plane's tests and load benchmark. It uses the
// PostgreSQL that is installed (Debian's postgresql package: initdb and
// postgres under /usr/lib/postgresql/*/bin); Available says whether there
// is one.
//
// The server listens on a Unix socket in its folder only (no TCP port).
// PostgreSQL refuses to run as root, so under root it runs as nobody
// (setpriv). It dies with the process that started it (parent-death
// signal), so a killed test run leaves no server behind.
package pgtest
