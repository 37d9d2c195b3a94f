//go:build profile

package cli

import (
	"os"
	"runtime/pprof"
)

// This file is in builds with -tags profile only: the profiler is
// performance work's, and leaving it out of the app keeps it smaller.

// startCPUProfile writes a CPU profile to path until stop is called
// (MNOTE_CPUPROFILE=path).
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeHeapProfile writes a heap profile (MNOTE_MEMPROFILE=path).
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}
