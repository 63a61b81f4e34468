#!/usr/bin/env bash
# How often herd calibrate's 95% intervals hold the mix that made the
# episodes: SEEDS runs of the scripted swarm as careful=0.7,hasty=0.3 on
# mock:crm (two variants), each calibrated against the whole built-in pack.
# Prints one line per seed and the share of the 2×SEEDS intervals that held
# the true weight (needs jq). Usage: bench/calibrate-coverage.sh [SEEDS] [AGENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:-10}"
agents="${2:-1000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/herd" ./cmd/herd
held=0
total=0
for s in $(seq 1 "$seeds"); do
  "$tmp/herd" swarm mock:crm --mix careful=0.7,hasty=0.3 --agents "$agents" --variant clear,ambiguous \
    --seed "$s" --episodes "$tmp/e.ndjson" --quiet
  "$tmp/herd" calibrate "$tmp/e.ndjson" --json "$tmp/c.json" >/dev/null
  line="$(jq -r '.fit.p as $p
    | [.mix[] | select(.persona == "careful" or .persona == "hasty")
      | . as $m | ({"careful": 0.7, "hasty": 0.3}[$m.persona]) as $t
      | ($m.lo <= $t and $t <= $m.hi) as $ok
      | {ok: $ok, text: "\($m.persona) \($m.weight) [\($m.lo), \($m.hi)]\(if $ok then "" else " MISS" end)"}]
    | "\(map(select(.ok)) | length) fit p=\($p) \(map(.text) | join("; "))"' "$tmp/c.json")"
  echo "seed $s: ${line#* }"
  held=$((held + ${line%% *}))
  total=$((total + 2))
done
echo "intervals holding the true weight: $held of $total"
