#!/usr/bin/env bash
# Stdio load that measures the server: herd swarm against the npm reference
# server-filesystem (on a scratch folder it fills first) at a fixed rate,
# ROUNDS times, with a fixed pool of warm processes. Prints, per round, the
# calls a second achieved, p99 over every call and over ok calls, the pool
# size and the processes' RSS and CPU; then the spread of p99 across rounds.
#
#   bench/stdio-load.sh                       # 180 agents/s ≈ 200 calls/s, 10 s, 3 rounds
#   RATE=300 DURATION=20s PROCESSES=8 bench/stdio-load.sh
#
# The server comes from an npm install outside the checkout (as .ci/run
# makes it): $HERD_NPM_SERVERS (the npm --prefix they were installed
# with), else ${HERD_NPM_DIR:-$HOME/.cache/herd-npm}. Only read-only tools
# are called (no --allow-writes): an exerciser calls one twice when it is
# answered (its answer must not change), once when it is refused (a guessed
# path not found), an adversary once — about 1.1 calls an agent here, so
# 180 agents a second make about 200 calls a second. Everything runs on this
# machine and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE="${RATE:-180}"
DURATION="${DURATION:-10s}"
ROUNDS="${ROUNDS:-3}"
PROCESSES="${PROCESSES:-4}"
npm_modules="${HERD_NPM_SERVERS:-${HERD_NPM_DIR:-$HOME/.cache/herd-npm}}/node_modules"
server="$npm_modules/.bin/mcp-server-filesystem"
if ! command -v node >/dev/null 2>&1; then
  echo "node is not installed: the npm reference servers need it" >&2; exit 1
fi
if [ ! -x "$server" ]; then
  echo "no $server: npm install --prefix \"\${HERD_NPM_DIR:-\$HOME/.cache/herd-npm}\" @modelcontextprotocol/server-filesystem" >&2; exit 1
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/herd" ./cmd/herd

# A small tree to read: the exerciser learns its paths from the listings.
files="$out/files"
mkdir -p "$files/docs/old" "$files/src"
for i in $(seq 20); do
  printf 'line %s\nof a note\n' "$i" >"$files/docs/note-$i.md"
  printf 'package main // %s\n' "$i" >"$files/src/file-$i.go"
done
printf 'archived\n' >"$files/docs/old/2019.txt"

echo "== server-filesystem over stdio: --rate $RATE agents/s for $DURATION, --processes $PROCESSES, $ROUNDS rounds ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
p99s=()
for r in $(seq "$ROUNDS"); do
  code=0
  "$out/herd" swarm "mcp+stdio:$server $files" --rate "$RATE" --duration "$DURATION" --processes "$PROCESSES" \
    --progress never --json "$out/run-$r.json" >/dev/null 2>"$out/run-$r.err" || code=$?
  if [ "$code" -gt 1 ]; then
    echo "round $r: exit $code"; cat "$out/run-$r.err"; exit 1
  fi
  calls="$(sed -n 's/.*calls in [0-9.]*s (\([0-9,.]*\) calls\/s).*/\1/p' "$out/run-$r.err" | head -1)"
  p99="$(sed -n 's/^herd: load: latency .*p99 \([0-9.]*\)ms.*/\1/p' "$out/run-$r.err" | head -1)"
  okp99="$(sed -n 's/^herd: load: ok calls ([0-9,]*) p50 [0-9.]*ms, p99 \([0-9.]*\)ms.*/\1/p' "$out/run-$r.err" | head -1)"
  pool="$(sed -n 's/^herd: server: \(.*\)/\1/p' "$out/run-$r.err" | head -1)"
  stopped="$(sed -n 's/^herd: load: stopped: //p' "$out/run-$r.err" | head -1)"
  echo "round $r: exit $code, $calls calls/s, p99 ${p99} ms (ok calls: ${okp99} ms), stopped $stopped; $pool"
  p99s+=("$p99")
done
printf '%s\n' "${p99s[@]}" | sort -g | awk '
  NR == 1 { lo = $1 } { hi = $1; sum += $1; n++ }
  END { printf "p99 across %d rounds: %.2f–%.2f ms (spread %.2f ms, %.0f%% of the mean %.2f ms)\n", n, lo, hi, hi - lo, 100 * (hi - lo) / (sum / n), sum / n }'
