// Package scripts holds no Go code: its tests check the shell scripts in this
// folder, and the Makefile lines that call them, against fake system tools
// (dpkg-query, apt-cache, apt-get, id, pkg-config, go, node, npm) on a PATH in
// a temp dir, so they run anywhere, change nothing on the machine and need no
// network.
//
// What they guarantee:
//   - webkit-tag.sh prints "webkit2_41" exactly when pkg-config finds
//     webkit2gtk-4.1, else nothing, and always exits 0 (the Makefile reads it
//     with $(shell)): the one place that chooses Wails' WebKitGTK build tag.
//   - deps.sh installs libwebkit2gtk-4.1-dev when apt has it (Debian 13 and
//     Ubuntu 24.04 have nothing else), else libwebkit2gtk-4.0-dev; reads empty
//     apt lists (a fresh image) before deciding; installs fonts-noto-cjk for the
//     window tests; runs no apt-get when everything is present; as a user it
//     installs nothing and prints the sudo command, and keeps a 4.0 that is
//     already there.
//   - `make deps build` (one make run, on a machine that lacked WebKitGTK)
//     builds the app with the tag of the WebKitGTK that deps just installed.
//   - `make test` vets the window's packages with that tag too, and every
//     package, test files included, with all of go vet's checks in go test
//     (-vet=all); it ends with the slowest tests of the suites that ran,
//     which scripts/testreport (package main, tested on its own) reads from
//     their reports, and shows go test's output as plain go test does.
//   - install.sh installs the command line (bin/mnote) and the window
//     (lib/mnote/mnote-app, where mnote looks for it) and keeps the .desktop
//     entry's field codes (Exec=/abs/mnote %f).
//   - package-test.sh (make package-test, root, slow, not in make test)
//     installs dist/mnote_*.deb with apt in a fresh Debian chroot, checks
//     mnote --version, a headless turn and a non-blank window under Xvfb,
//     and that apt-get purge leaves nothing.
package scripts
