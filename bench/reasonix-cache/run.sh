#!/usr/bin/env bash
# The prompt-cache report: the design's three scenarios (A: one note edited
# 5 times in a row; B: five notes edited in turn; C: one session of 10 turns;
# and A again through `mnote prompt`, a new process each turn) run through
# mnote on the real, pinned Reasonix and on Qwen Code and OpenCode as baselines,
# offline against the fake DeepSeek server's simulated prompt cache. It is
# the test TestCacheReport in e2e/agents with MNOTE_CACHE_REPORT set; without
# it, that test is a two-turn smoke in make test.
#
# Usage: bench/reasonix-cache/run.sh [REPORT.md]   (default docs/benchmarks/reasonix-cache-report.md)
# MNOTE_CACHE_BASELINE=qwen (or opencode) runs one baseline only.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-docs/benchmarks/reasonix-cache-report.md}
[[ $out == /* ]] || out=$PWD/$out
scripts/agents.sh >/dev/null
MNOTE_E2E_AGENTS=1 MNOTE_CACHE_REPORT=$out MNOTE_CACHE_REPORT_NOTES=$PWD/bench/reasonix-cache/findings.md \
	go test -tags sqlite_fts5 -count=1 -run '^TestCacheReport$' -timeout 20m ./e2e/agents/
echo "wrote $out"
