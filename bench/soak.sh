#!/usr/bin/env bash
# A served world under a long load: one `herd serve --http` answering, at
# the same time, a bare go-sdk client loop (bench/mcploop: sessions that are
# never reset, as k6 or an agent framework keeps them) and herd swarm
# (sessions reset with every episode's first call). Every 10 s the server's
# RSS, goroutines, open files, heap and calls/s go into a CSV; at the end a
# summary and a chart of RSS over time.
#
#   bench/soak.sh                        # 10 minutes
#   bench/soak.sh --duration 120         # 2 minutes (seconds)
#   LOOP_SESSIONS=8 SWARM_INFLIGHT=8 CSV=soak.csv bench/soak.sh
#   SERVE_FLAGS='--journal-limit 0' bench/soak.sh --duration 120   # unbounded journals, to compare
#
# Every process runs at the same GC setting: GOGC as given, else herd's own
# target (GOGC=400, the heap never more than 48 MiB above the live heap —
# internal/gctarget; bench/mcploop sets it too), which is what a user's
# herd serve runs at. Everything
# runs on 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."

SOAK_SECONDS="${DURATION:-600}"
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--duration) SOAK_SECONDS="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench/soak.sh: unknown argument $1 (want --duration SECONDS)" >&2; exit 2 ;;
  esac
done
case "$SOAK_SECONDS" in ''|*[!0-9]*) echo "bench/soak.sh: --duration: want whole seconds, got $SOAK_SECONDS" >&2; exit 2 ;; esac
if [ "$SOAK_SECONDS" -lt 20 ] || [ "$SOAK_SECONDS" -gt 3600 ]; then
  echo "bench/soak.sh: --duration: want 20 to 3600 seconds, got $SOAK_SECONDS" >&2; exit 2
fi
LOOP_SESSIONS="${LOOP_SESSIONS:-8}"
SWARM_INFLIGHT="${SWARM_INFLIGHT:-8}"
WORLD="${WORLD:-mock:crm}"
EVERY=10
if [ -n "${GOGC:-}" ]; then export GOGC; fi
GC_SAID="${GOGC:+GOGC=$GOGC}"
GC_SAID="${GC_SAID:-the herd GC target (GOGC=400, 48 MiB headroom cap)}"

out="$(mktemp -d)"
CSV="${CSV:-$out/soak.csv}"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT
go build -o "$out/herd" ./cmd/herd
go build -o "$out/mcploop" ./bench/mcploop

# shellcheck disable=SC2086 # SERVE_FLAGS is a list of flags
"$out/herd" serve "$WORLD" --http 127.0.0.1:0 --log-level warn ${SERVE_FLAGS:-} >"$out/url.txt" 2>"$out/serve.err" &
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 50); do [ -s "$out/url.txt" ] && break; sleep 0.1; done
url="$(head -1 "$out/url.txt")"
case "$url" in http://127.0.0.1:*) ;; *) echo "herd serve did not start: $(cat "$out/serve.err")"; exit 1 ;; esac
control="${url%/mcp}/control"

echo "soak: $WORLD ${SERVE_FLAGS:-} for ${SOAK_SECONDS}s at $GC_SAID: $LOOP_SESSIONS never-reset loop sessions + herd swarm at $SWARM_INFLIGHT in flight; sampling every ${EVERY}s into $CSV" >&2

"$out/mcploop" -url "$url" -sessions "$LOOP_SESSIONS" -duration "${SOAK_SECONDS}s" >"$out/loop.txt" 2>"$out/loop.err" &
pids+=($!)
"$out/herd" swarm "$url" --duration "${SOAK_SECONDS}s" --max-in-flight "$SWARM_INFLIGHT" --seed 1 \
  --progress never --json "$out/run.json" >/dev/null 2>"$out/swarm.err" &
swarm_pid=$!
pids+=("$swarm_pid")

# One sample: seconds, RSS (kB), heap (kB), goroutines, open files, calls
# served, live and kept sessions. The runtime figures come from the control
# plane (GET /control/runtime); RSS and open files from /proc.
sample() {
  local rt rss fds
  rt="$(curl -fsS "$control/runtime")" || return 1
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status")
  fds=$(find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  echo "$rt" | tr -d ' \n' | sed -E 's/.*"calls":([0-9]+),"goroutines":([0-9]+),"heap_bytes":([0-9]+),"gcs":[0-9]+,"sessions":\{"live":([0-9]+),"kept":([0-9]+).*/\1 \2 \3 \4 \5/' |
    awk -v t="$1" -v rss="$rss" -v fds="$fds" '{printf "%d,%d,%d,%d,%d,%d,%d,%d\n", t, rss, $3/1024, $2, fds, $1, $4, $5}'
}

echo "t_s,rss_kb,heap_kb,goroutines,open_files,calls,live_sessions,kept_sessions,calls_per_s" >"$CSV"
start=$(date +%s)
prev_calls=0
prev_t=0
while :; do
  t=$(( $(date +%s) - start ))
  if line="$(sample "$t")"; then
    calls=$(echo "$line" | cut -d, -f6)
    rate=0
    if [ "$t" -gt "$prev_t" ]; then rate=$(( (calls - prev_calls) / (t - prev_t) )); fi
    echo "$line,$rate" >>"$CSV"
    prev_calls=$calls
    prev_t=$t
  fi
  # Stop before the clients do: a sample after they end would show an idle
  # server, not the load.
  [ $(( t + EVERY )) -ge "$SOAK_SECONDS" ] && break
  kill -0 "$swarm_pid" 2>/dev/null || break
  sleep "$EVERY"
done
wait "$swarm_pid" || { echo "herd swarm failed:"; cat "$out/swarm.err"; exit 1; }

echo >&2
echo "loop:  $(cat "$out/loop.txt")" >&2
echo "swarm: $(grep -m1 'calls in' "$out/swarm.err" || tail -1 "$out/swarm.err")" >&2
# Growth after the first minute: the journals fill in the first seconds,
# after which RSS, goroutines and open files should stay level. RSS saws up
# and down with each collection (by tens of megabytes), so the
# first and the last third of the samples after the first minute are
# compared by their means.
awk -F, 'NR == 1 { next }
  $1 >= 60 { n++; rss[n] = $2; g[n] = $4; f[n] = $5 }
  { if (NR > 2) { sum += $9; cnt++ } }
  END {
    if (n < 3) { printf "too few samples after the first minute (%d) to judge growth\n", n; exit }
    k = int(n / 3)
    for (i = 1; i <= k; i++) { a += rss[i]; if (g[i] > ga) ga = g[i]; if (f[i] > fa) fa = f[i] }
    for (i = n - k + 1; i <= n; i++) { b += rss[i]; if (g[i] > gb) gb = g[i]; if (f[i] > fb) fb = f[i] }
    printf "after the first minute (%d samples): mean RSS %.1f MB in the first third, %.1f MB in the last (%+.1f MB); most goroutines %d then %d; most open files %d then %d; mean %.0f calls/s\n",
      n, a / k / 1024, b / k / 1024, (b - a) / k / 1024, ga, gb, fa, fb, cnt ? sum / cnt : 0
  }' "$CSV" >&2

# RSS over time, one bar per sample (MB).
awk -F, 'NR == 1 { next } { t[NR] = $1; m[NR] = $2/1024; if (m[NR] > mx) mx = m[NR] }
  END { for (i = 2; i <= NR; i++) { w = int(50 * m[i] / mx); b = ""; for (j = 0; j < w; j++) b = b "#"; printf "%5ds %6.1f MB %s\n", t[i], m[i], b } }' "$CSV" >&2
if [ "$CSV" = "$out/soak.csv" ]; then cat "$CSV"; fi
