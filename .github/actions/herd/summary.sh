#!/usr/bin/env bash
# Appends the run's Markdown report to the job's step summary, with a link
# to the HTML report artifact when there is one.
#
#   GITHUB_STEP_SUMMARY   the summary file (set by GitHub Actions)   required
#   HERD_MARKDOWN         the report written by run.sh
#   HERD_EXIT_CODE        herd's exit code (to explain a missing report)
#   HERD_ARTIFACT_URL     the HTML report artifact's URL, if uploaded
set -euo pipefail

summary="${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set: run this inside GitHub Actions}"
md="${HERD_MARKDOWN:-}"
# GitHub refuses a step summary over 1 MiB; herd's Markdown stays under
# 60 KB, so this only guards against a file that is not herd's.
limit=$((1024 * 1024 - 4096))

if [ -z "$md" ] || [ ! -s "$md" ]; then
  {
    echo "## ⚠️ herd: no report"
    echo
    echo "herd exited with code ${HERD_EXIT_CODE:-?} before writing a report (2: bad input, 3: the target broke). The job log has its error."
  } >> "$summary"
  exit 0
fi

size=$(wc -c < "$md")
if [ "$size" -gt "$limit" ]; then
  head -c "$limit" "$md" >> "$summary"
  printf '\n\n_(report cut at %d of %d bytes: GitHub allows 1 MiB per step summary)_\n' "$limit" "$size" >> "$summary"
else
  cat "$md" >> "$summary"
fi
if [ -n "${HERD_ARTIFACT_URL:-}" ]; then
  printf '\n📄 [Full HTML report](%s) (artifact)\n' "$HERD_ARTIFACT_URL" >> "$summary"
fi
