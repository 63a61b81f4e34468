#!/usr/bin/env bash
# Runs `herd swarm` for the action and writes every report format into one
# folder. It never fails the step itself: the exit code goes to
# $GITHUB_OUTPUT and gate.sh fails the job at the end, so the summary, the
# artifact and the PR comment are still produced for a NOT READY run.
#
#   HERD_WORLD        world to run (mock:crm, a world file)          required
#   HERD_AGENTS       number of agents                               default 1000
#   HERD_SEED         run seed                                       default: the world's
#   HERD_THRESHOLDS   thresholds, one per line ('#' starts a comment)
#   HERD_VARIANT      description variant(s), comma-separated
#   HERD_FAULTS       fault profile                                  default none
#   HERD_MIX          persona mix, e.g. careful=0.5,hasty=0.5
#   HERD_STRICT       "true": INCONCLUSIVE fails too
#   HERD_ARGS         further arguments, one per line ('#' starts a comment)
#   HERD_OUT          output folder                                  default $RUNNER_TEMP/herd
#   HERD_BIN          the herd binary                                default herd (on PATH)
#
# Outputs (to $GITHUB_OUTPUT): exit-code, verdict, dir, json, markdown,
# html, junit, badge.
set -euo pipefail

if [ -z "${HERD_WORLD:-}" ]; then
  echo "herd action: the \"world\" input is required (mock:crm, mock:shop, … or a world file)" >&2
  exit 2
fi
out="${HERD_OUT:-${RUNNER_TEMP:-/tmp}/herd}"
herd="${HERD_BIN:-herd}"
output="${GITHUB_OUTPUT:-/dev/null}"
# Each output name and the file herd writes for it.
reports="json:run.json markdown:report.md html:report.html junit:junit.xml badge:badge.json"
mkdir -p "$out"
# A second run into the same folder (the action used twice in one job) must
# not pass off the first run's reports as its own when herd fails early.
for pair in $reports; do
  rm -f "$out/${pair#*:}"
done

args=(swarm "$HERD_WORLD" --agents "${HERD_AGENTS:-1000}" --progress never
  --json "$out/run.json" --md "$out/report.md" --html "$out/report.html"
  --junit "$out/junit.xml" --badge "$out/badge.json")
[ -n "${HERD_SEED:-}" ] && args+=(--seed "$HERD_SEED")
[ -n "${HERD_VARIANT:-}" ] && args+=(--variant "$HERD_VARIANT")
[ -n "${HERD_FAULTS:-}" ] && args+=(--faults "$HERD_FAULTS")
[ -n "${HERD_MIX:-}" ] && args+=(--mix "$HERD_MIX")
[ "${HERD_STRICT:-false}" = true ] && args+=(--strict)

thresholds=0
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}" # trim leading blanks
  line="${line%"${line##*[![:space:]]}"}" # trim trailing blanks
  if [ -z "$line" ] || [ "${line:0:1}" = "#" ]; then
    continue
  fi
  args+=(--threshold "$line")
  thresholds=$((thresholds + 1))
done <<< "${HERD_THRESHOLDS:-}"

# Each line is one argument, never split on blanks or expanded: a value
# cannot smuggle a second flag or a shell word in.
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  line="${line%"${line##*[![:space:]]}"}"
  if [ -z "$line" ] || [ "${line:0:1}" = "#" ]; then
    continue
  fi
  args+=("$line")
done <<< "${HERD_ARGS:-}"

echo "herd ${args[*]}"
set +e
"$herd" "${args[@]}" 2>&1 | tee "$out/terminal.txt"
code=${PIPESTATUS[0]}
set -e

# The verdict, for later steps and the caller's `if:`. The badge holds it in
# a fixed shape ({"message": "NOT READY"}), so no JSON tool is needed.
verdict=""
if [ "$code" -ge 2 ]; then
  verdict="ERROR"
elif [ "$thresholds" -eq 0 ]; then
  verdict="NO THRESHOLDS"
elif [ -f "$out/badge.json" ]; then
  verdict="$(sed -n 's/.*"message": *"\([^"]*\)".*/\1/p' "$out/badge.json")"
fi

{
  echo "exit-code=$code"
  echo "verdict=$verdict"
  echo "dir=$out"
  for pair in $reports; do
    name="${pair%%:*}" file="$out/${pair#*:}"
    if [ -f "$file" ]; then
      echo "$name=$file"
    else
      echo "$name="
    fi
  done
} >> "$output"
echo "herd exited $code; verdict: ${verdict:-none}"
