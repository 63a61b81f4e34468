#!/usr/bin/env bash
# herd swarm --find-ceiling against herd serve on loopback, repeated: the
# start rate each search settles on as the last one within the bound, and
# how far apart the repeats are (the search is meant to agree with itself
# within 20%).
#
#   bench/ceiling.sh                                    # 3 searches, p99<200ms,errors<1%
#   RUNS=5 BOUND='p99<100ms,errors<1%' bench/ceiling.sh
#   INFLIGHT=256 STEP=3s FROM=20 bench/ceiling.sh
#
# Needs node (to read the results JSON).
#
# Each step runs STEP at a constant rate; the rate doubles from FROM while
# steps hold, then three geometric bisections refine it. INFLIGHT is high
# by default so that the server, not the in-flight cap, is what fails: a
# step that cannot start agents at 90% of its rate fails too. Everything
# runs on 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-3}"
BOUND="${BOUND:-p99<200ms,errors<1%}"
INFLIGHT="${INFLIGHT:-256}"
STEP="${STEP:-3s}"
FROM="${FROM:-20}"
WORLD="${WORLD:-mock:crm}"
export GOGC="${GOGC:-400}"

out="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap cleanup EXIT
go build -o "$out/herd" ./cmd/herd

"$out/herd" serve "$WORLD" --http 127.0.0.1:0 --log-level warn >"$out/url.txt" 2>"$out/serve.err" &
server_pid=$!
for _ in $(seq 50); do [ -s "$out/url.txt" ] && break; sleep 0.1; done
url="$(head -1 "$out/url.txt")"
case "$url" in http://127.0.0.1:*) ;; *) echo "herd serve did not start: $(cat "$out/serve.err")"; exit 1 ;; esac

echo "herd serve $WORLD at $url; bound $BOUND; $INFLIGHT in flight; steps of $STEP from $FROM/s; GOGC=$GOGC"
ceilings=()
for r in $(seq "$RUNS"); do
  "$out/herd" swarm "$url" --find-ceiling "$BOUND" --rate "$FROM" --duration "$STEP" --max-in-flight "$INFLIGHT" \
    --quiet --json "$out/run$r.json" 2>"$out/run$r.err" || true
  # The curve from the results (node is what the repository's other tooling uses).
  line=$(node -e '
    const c = JSON.parse(require("fs").readFileSync(process.argv[1])).timing.ceiling;
    const steps = c.steps.map(s => `${s.rate}/s→p99 ${s.p99_ms}ms${s.pass ? "" : " ✗"}`).join(" ");
    console.log(c.rate + "\t" + steps);' "$out/run$r.json") || { echo "run $r: no ceiling: $(tail -3 "$out/run$r.err")"; exit 1; }
  c=${line%%$'\t'*}
  steps=${line#*$'\t'}
  echo "run $r: ceiling $c agents/s   [$steps]"
  ceilings+=("$c")
done
printf '%s\n' "${ceilings[@]}" | awk '
  NR == 1 { lo = $1; hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1; sum += $1 }
  END { mean = sum / NR; spread = (hi - lo) / mean * 100
        printf "ceilings: min %.1f, max %.1f, mean %.1f agents/s; spread (max-min)/mean %.1f%%: %s\n", lo, hi, mean, spread, (spread <= 20 ? "within 20%" : "NOT within 20%") }'
