package store

import (
	"log/slog"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// Warnings (corrupt lines, torn tails) stay visible; info lines would
	// interleave with benchmark output.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	code := m.Run()
	cleanupBenchData()
	os.Exit(code)
}
