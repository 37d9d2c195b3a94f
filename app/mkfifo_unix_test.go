//go:build unix

package app_test

import "syscall"

func syscallMkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
