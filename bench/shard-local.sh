#!/usr/bin/env bash
# The Kubernetes Indexed Job recipe (examples/kubernetes/), run locally: N
# herd processes in parallel with JOB_COMPLETION_INDEX=0..N-1 and
# HERD_SHARDS=N (`--shard auto`), then `herd merge`, then the same run
# unsharded — and a byte-for-byte comparison of the two documents'
# deterministic sections (everything but timing). Prints whole-process wall
# time, CPU time and peak RSS of every process.
#
#   bench/shard-local.sh                 # 1,000,000 agents
#   bench/shard-local.sh 20000           # a quick check
#   SHARDS=8 FAULTS=hostile WORLD=mock:shop bench/shard-local.sh 200000
#   KEEP=/tmp/shards bench/shard-local.sh  # keep the documents there
#
# Environment: WORLD (mock:crm), SEED (42), SHARDS (4), FAULTS (realistic),
# VARIANT (the world's first), HERD and DETJSON (prebuilt binaries; default:
# built from this checkout), KEEP (a folder to keep the documents in).
# Peak RSS needs GNU time (/usr/bin/time, Debian package "time"); without
# it only wall time is shown. Needs no python, jq or bc.
#
# Exit status: 0 the sections are identical, 1 they differ, 2 a step failed.
set -euo pipefail
cd "$(dirname "$0")/.."

agents="${1:-1000000}"
world="${WORLD:-mock:crm}"
seed="${SEED:-42}"
shards="${SHARDS:-4}"
faults="${FAULTS:-realistic}"
variant="${VARIANT:-}"

fail() {
  echo "shard-local: $*" >&2
  exit 2
}
[[ "$agents" =~ ^[1-9][0-9]*$ ]] || fail "agents: want a positive number, got \"$agents\""
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || fail "SHARDS: want a positive number, got \"$shards\""

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="${KEEP:-$tmp/out}"
mkdir -p "$out"
rm -f "$out"/shard-*.json "$out"/merged.json "$out"/unsharded.json

herd="${HERD:-}"
if [ -z "$herd" ]; then
  go build -o "$tmp/herd" ./cmd/herd || fail "building herd"
  herd="$tmp/herd"
fi
detjson="${DETJSON:-}"
if [ -z "$detjson" ]; then
  go build -o "$tmp/detjson" ./bench/detjson || fail "building detjson"
  detjson="$tmp/detjson"
fi

gnu_time=""
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
  gnu_time=/usr/bin/time
fi

# timed NAME COMMAND...: runs COMMAND (its output to $tmp/NAME.log) and
# writes "wall_seconds cpu_seconds peak_rss_kb" to $tmp/NAME.t.
timed() {
  local name="$1"
  shift
  local start end status=0
  start=$(date +%s%N)
  if [ -n "$gnu_time" ]; then
    "$gnu_time" -v -o "$tmp/$name.tv" "$@" >"$tmp/$name.log" 2>&1 || status=$?
  else
    "$@" >"$tmp/$name.log" 2>&1 || status=$?
  fi
  end=$(date +%s%N)
  local cpu="-" rss="-"
  if [ -n "$gnu_time" ] && [ -f "$tmp/$name.tv" ]; then
    cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$tmp/$name.tv")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/$name.tv")
  fi
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", (b - a) / 1e9}') $cpu $rss" >"$tmp/$name.t"
  if [ "$status" -ne 0 ]; then
    echo "shard-local: $name failed (exit $status):" >&2
    cat "$tmp/$name.log" >&2
  fi
  return "$status"
}

row() { # row LABEL NAME
  read -r wall cpu rss <"$tmp/$2.t"
  awk -v l="$1" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
    printf "%-26s %9.2f %9s %12s\n", l, w, c, (r == "-" ? "-" : sprintf("%.1f", r / 1024))
  }'
}

flags=("$world" --agents "$agents" --seed "$seed" --faults "$faults" --progress never)
[ -n "$variant" ] && flags+=(--variant "$variant")

echo "shard-local: herd swarm ${flags[*]}"
echo "shard-local: $shards shards (JOB_COMPLETION_INDEX=0..$((shards - 1)), HERD_SHARDS=$shards) in parallel, then merge, then unsharded; $(nproc 2>/dev/null || echo '?') cores"

# The Indexed Job: one process per index, all at once, each with the
# environment Kubernetes gives a pod of an Indexed Job.
par_start=$(date +%s%N)
pids=()
for ((k = 0; k < shards; k++)); do
  JOB_COMPLETION_INDEX=$k HERD_SHARDS=$shards \
    timed "shard-$k" "$herd" swarm "${flags[@]}" --shard auto --json "$out/shard-$k.json" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
par_end=$(date +%s%N)
[ "$failed" -eq 0 ] || fail "a shard failed"

merge_args=()
for ((k = 0; k < shards; k++)); do
  merge_args+=("$out/shard-$k.json")
done
timed merge "$herd" merge "${merge_args[@]}" -o "$out/merged.json" || fail "merge failed"
timed unsharded "$herd" swarm "${flags[@]}" --json "$out/unsharded.json" || fail "the unsharded run failed"

"$detjson" -o "$tmp/merged.det" "$out/merged.json" || fail "reading merged.json"
"$detjson" -o "$tmp/unsharded.det" "$out/unsharded.json" || fail "reading unsharded.json"

echo
printf "%-26s %9s %9s %12s\n" process "wall s" "cpu s" "peak RSS MB"
for ((k = 0; k < shards; k++)); do
  row "shard $k/$shards" "shard-$k"
done
awk -v a="$par_start" -v b="$par_end" -v n="$shards" 'BEGIN {
  printf "%-26s %9.2f\n", n " shards, wall (parallel)", (b - a) / 1e9
}'
row "merge" merge
row "unsharded" unsharded
echo

size=$(wc -c <"$tmp/unsharded.det")
sum=$( (sha256sum "$tmp/unsharded.det" 2>/dev/null || cksum "$tmp/unsharded.det") | awk '{print $1}')
if cmp -s "$tmp/merged.det" "$tmp/unsharded.det"; then
  echo "deterministic sections: identical ($size bytes, sha256 $sum)"
  exit 0
fi
echo "deterministic sections: DIFFER (merged $(wc -c <"$tmp/merged.det") bytes, unsharded $size bytes)"
cmp "$tmp/merged.det" "$tmp/unsharded.det" || true
exit 1
