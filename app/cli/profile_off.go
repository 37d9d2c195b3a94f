//go:build !profile

package cli

import "errors"

// errNoProfiler is what MNOTE_CPUPROFILE and MNOTE_MEMPROFILE get from a
// build without the profiler (profile.go).
var errNoProfiler = errors.New("this build has no profiler: build mnote with -tags sqlite_fts5,profile")

func startCPUProfile(string) (func(), error) { return nil, errNoProfiler }

func writeHeapProfile(string) error { return errNoProfiler }
