#!/usr/bin/env bash
# The swarm as a load generator over Streamable HTTP against herd serve,
# next to two bare go-sdk client loops (bench/mcploop) against the same
# server on the same machine: tool calls a second, p99 and CPU per call for
# each, and the ratio of the rates.
#
# The two loops are two references:
#   go-sdk loop      every session calls get_contact back to back (a 0.6 KB
#                    answer): the cheapest call there is
#   go-sdk mix loop  the swarm's own calls, recorded from a short swarm run
#                    through a recording proxy (mcploop -record) before the
#                    rounds and replayed whole episode by episode (mcploop
#                    -mix), so the loop gets the swarm's answers — lists and
#                    searches of 20 records, writes, the reset riding on each
#                    episode's first call — and what separates the two is
#                    the client's work alone
#
#   bench/load.sh                       # 16 at once, 10 s each, 3 rounds
#   INFLIGHT=32 DURATION=20 ROUNDS=5 bench/load.sh
#   GOGC=100 bench/load.sh              # every process at Go's default instead
#   SERVE_GOGC=100 bench/load.sh        # the server alone at another setting
#   BEFORE=/tmp/herd-old bench/load.sh  # also another herd build's swarm, each round
#   SERVE_BIN=/tmp/herd-old bench/load.sh  # another herd build serves
#
# With BEFORE (a herd binary built from another commit, e.g. the one before
# a change), each round runs the two loops, this build's swarm and that
# build's swarm one after the other against the same server, so a
# before/after is measured in the same minute. RECORD_SECONDS (default 3)
# is how long the swarm run recorded for the same-mix loop lasts.
#
# Every client runs at the same GC setting — GOGC as given, else 400, which
# is what herd swarm and herd serve set themselves when GOGC is unset — so
# the swarm is compared with an equally tuned loop; the script says which.
# Everything runs on 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
INFLIGHT="${INFLIGHT:-16}"
# (not SECONDS: bash sets that itself, to the seconds since the shell started)
SECONDS_EACH="${DURATION:-10}"
ROUNDS="${ROUNDS:-3}"
WORLD="${WORLD:-mock:crm}"
export GOGC="${GOGC:-400}"
SERVE_GOGC="${SERVE_GOGC:-$GOGC}"
if [ -n "${BEFORE:-}" ] && [ ! -x "$BEFORE" ]; then echo "BEFORE=$BEFORE: not an executable herd binary" >&2; exit 2; fi
if [ -n "${SERVE_BIN:-}" ] && [ ! -x "$SERVE_BIN" ]; then echo "SERVE_BIN=$SERVE_BIN: not an executable herd binary" >&2; exit 2; fi

out="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$out"
}
trap cleanup EXIT
go build -o "$out/herd" ./cmd/herd
go build -o "$out/mcploop" ./bench/mcploop

GOGC="$SERVE_GOGC" "${SERVE_BIN:-$out/herd}" serve "$WORLD" --http 127.0.0.1:0 --log-level warn >"$out/url.txt" 2>"$out/serve.err" &
server_pid=$!
for _ in $(seq 50); do [ -s "$out/url.txt" ] && break; sleep 0.1; done
url="$(head -1 "$out/url.txt")"
case "$url" in http://127.0.0.1:*) ;; *) echo "herd serve did not start: $(cat "$out/serve.err")"; exit 1 ;; esac

# CPU per call in µs, of the client and of the server (from /proc: user+system
# ticks): the two share the machine's cores, so a client's own work per call
# is taken from what the server can answer.
tck="$(getconf CLK_TCK)"
server_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
per_call() { echo "scale=0; $1 * 1000000 / $2" | bc -l; } # seconds, calls → µs
TIMEFORMAT='%U %S'

echo "GC: both clients at GOGC=$GOGC, herd serve at GOGC=$SERVE_GOGC; $INFLIGHT in flight, ${SECONDS_EACH}s per client and round"
# The same-mix loop's calls: a swarm run of RECORD_SECONDS through the
# recording proxy, before the rounds.
RECORD_SECONDS="${RECORD_SECONDS:-3}"
"$out/mcploop" -url "$url" -record "$out/mix.jsonl" -duration "$((RECORD_SECONDS + 5))s" >"$out/proxy.txt" 2>"$out/proxy.err" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$out/proxy.txt" ] && break; sleep 0.1; done
proxy_url="$(head -1 "$out/proxy.txt")"
case "$proxy_url" in http://127.0.0.1:*) ;; *) echo "mcploop -record did not start: $(cat "$out/proxy.err")"; exit 1 ;; esac
"$out/herd" swarm "$proxy_url" --duration "${RECORD_SECONDS}s" --max-in-flight "$INFLIGHT" --seed 1 \
  --progress never >/dev/null 2>"$out/record.err" || { cat "$out/record.err"; exit 1; }
wait "$proxy_pid" || { echo "mcploop -record: $(cat "$out/proxy.err")"; exit 1; }

# swarm BIN LABEL ROUND: one swarm run of BIN, printed against the rates of
# the round's two loops.
swarm() {
  local s1 s2 rate calls p99 cpu
  s1=$(server_ticks)
  { time "$1" swarm "$url" --duration "${SECONDS_EACH}s" --max-in-flight "$INFLIGHT" --seed "$3" \
    --progress never --json "$out/run.json" >/dev/null 2>"$out/swarm.err"; } 2>"$out/swarm.time" || { cat "$out/swarm.err"; exit 1; }
  s2=$(server_ticks)
  # (herd prints counts with thousands separators: 10,193 calls)
  rate=$(sed -n 's/.*calls in .*s (\([0-9,]*\) calls\/s).*/\1/p' "$out/swarm.err" | tr -d ,)
  calls=$(sed -n 's/.*; \([0-9,]*\) calls in .*/\1/p' "$out/swarm.err" | tr -d ,)
  p99=$(sed -n 's/.*latency .*p99 \([0-9.]*\)ms,.*/\1/p' "$out/swarm.err")
  cpu=$(awk '{print $1 + $2}' "$out/swarm.time")
  printf "%-6s %-16s %9s %8s %14s %14s   (%.0f%% of the get_contact loop, %.0f%% of the same-mix loop)\n" "$3" "$2" "$rate" "$p99" \
    "$(per_call "$cpu" "$calls")" "$(per_call "$(echo "($s2 - $s1) / $tck" | bc -l)" "$calls")" \
    "$(echo "100 * $rate / $bare_rate" | bc -l)" "$(echo "100 * $rate / $mix_rate" | bc -l)"
}

# loop LABEL ROUND ARGS…: one run of the go-sdk loop; sets loop_rate.
loop() {
  local label=$1 round=$2 s0 s1 line calls p99 cpu
  shift 2
  s0=$(server_ticks)
  { time "$out/mcploop" -url "$url" -sessions "$INFLIGHT" -duration "${SECONDS_EACH}s" "$@" >"$out/bare.txt" 2>"$out/bare.err"; } 2>"$out/bare.time" ||
    { cat "$out/bare.txt" "$out/bare.err"; exit 1; }
  s1=$(server_ticks)
  line=$(cat "$out/bare.txt")
  loop_rate=$(echo "$line" | awk '{for (i=1;i<NF;i++) if ($i=="calls_per_sec") print $(i+1)}')
  calls=$(echo "$line" | awk '{print $2}')
  p99=$(echo "$line" | awk '{for (i=1;i<NF;i++) if ($i=="p99_ms") print $(i+1)}')
  cpu=$(awk '{print $1 + $2}' "$out/bare.time")
  printf "%-6s %-16s %9s %8s %14s %14s\n" "$round" "$label" "$loop_rate" "$p99" \
    "$(per_call "$cpu" "$calls")" "$(per_call "$(echo "($s1 - $s0) / $tck" | bc -l)" "$calls")"
}

echo "same-mix loop: $(wc -l <"$out/mix.jsonl") tool calls recorded from a ${RECORD_SECONDS}s swarm run (seed 1), replayed episode by episode"
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) before the first round"
printf "%-6s %-16s %9s %8s %14s %14s\n" round client "calls/s" "p99 ms" "client us/call" "server us/call"
for r in $(seq "$ROUNDS"); do
  loop "go-sdk loop" "$r"
  bare_rate=$loop_rate
  loop "go-sdk mix loop" "$r" -mix "$out/mix.jsonl"
  mix_rate=$loop_rate
  swarm "$out/herd" "herd swarm" "$r"
  if [ -n "${BEFORE:-}" ]; then swarm "$BEFORE" "swarm before" "$r"; fi
done
echo "machine: load average $(cut -d' ' -f1-3 /proc/loadavg) after the last round"
