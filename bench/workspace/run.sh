#!/usr/bin/env bash
# Workspace speed (issue 5) on 10,000 Markdown files in 1,000 folders: runs
# the Go benchmarks of package workspace and prints the figures against the
# targets (full tree < 1 s, watcher set up < 2 s, an external change at the
# subscriber < 300 ms). Exits 1 when a target is missed.
#   BENCHTIME=5x   iterations of the one-shot benchmarks
#   SAMPLES=40     external changes timed for the latency percentiles
set -euo pipefail
cd "$(dirname "$0")/../.."
pkg=./workspace/
flags=(-tags sqlite_fts5 -run '^$' -count 1)
{
	go test "${flags[@]}" -bench 'Tree10k|Find10k|WatchSetup10k|CheckpointPrime10k|Turn10k' -benchtime "${BENCHTIME:-5x}" "$pkg"
	go test "${flags[@]}" -bench 'WatchLatency10k' -benchtime "${SAMPLES:-40}x" "$pkg"
} | tee /dev/stderr | awk '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		ms[name] = $3 / 1e6
		for (i = 5; i < NF; i += 2) metric[name, $(i+1)] = $i
	}
	function line(what, v, target,    verdict) {
		if (target == "") { printf "  %-34s %9.1f ms\n", what, v; return }
		verdict = (v < target) ? sprintf("ok, %.1fx under", target / v) : "MISSED"
		if (v >= target) missed = 1
		printf "  %-34s %9.1f ms   target < %d ms   %s\n", what, v, target, verdict
	}
	END {
		print ""
		print "workspace speed: 10,000 Markdown files in 1,000 folders"
		line("tree ready (full listing)", ms["BenchmarkTree10k"], 1000)
		line("watcher set up", ms["BenchmarkWatchSetup10k"], 2000)
		line("external change, p50", metric["BenchmarkWatchLatency10k", "p50-ms"], 300)
		line("external change, p95", metric["BenchmarkWatchLatency10k", "p95-ms"], 300)
		line("@-mention find (one query)", ms["BenchmarkFind10k"])
		line("BeginTurn + disk write + EndTurn", ms["BenchmarkTurn10k"])
		line("checkpoint first scan (once)", ms["BenchmarkCheckpointPrime10k"])
		exit missed
	}'
