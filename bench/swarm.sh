#!/usr/bin/env bash
# Whole-process swarm figures: agents per second and peak RSS at growing
# agent counts, on mock:crm with the default persona mix.
#
#   bench/swarm.sh                 # 200, 20,000, 200,000 and 1,000,000 agents
#   bench/swarm.sh 200 5000        # just these sizes
#   WORLD=mock:shop bench/swarm.sh
#
# Needs GNU time (/usr/bin/time, Debian package "time") for peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
WORLD="${WORLD:-mock:crm}"
SEED="${SEED:-42}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(200 20000 200000 1000000)

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/herd" ./cmd/herd

printf "%-10s %10s %12s %12s %14s\n" agents seconds "agents/s" "episodes/s" "peak RSS MB"
for n in "${sizes[@]}"; do
  /usr/bin/time -v -o "$out/time.txt" "$out/herd" swarm "$WORLD" --agents "$n" --seed "$SEED" \
    --progress never --json "$out/run.json" >/dev/null 2>"$out/err.txt" || { cat "$out/err.txt"; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/time.txt")
  secs=$(echo "$wall" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time.txt")
  eps=$(grep -o '"episodes_per_sec": *[0-9.e+]*' "$out/run.json" | awk -F': *' '{print $2}')
  printf "%-10s %10.3f %12.0f %12.0f %14.1f\n" "$n" "$secs" "$(echo "$n / $secs" | bc -l)" "$eps" "$(echo "$rss / 1024" | bc -l)"
done
