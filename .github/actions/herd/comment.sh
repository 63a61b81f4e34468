#!/usr/bin/env bash
# Prepares the pull-request comment as files for an artifact: comment.md
# (the report, opened by the hidden marker the poster looks for), pr-number
# and head-sha. A pull request from a fork runs with a read-only token and
# cannot comment itself; a separate workflow_run workflow, which runs in the
# base repository with a write token, posts these files (see
# comment/action.yml and examples/github/herd-comment.yml).
#
#   HERD_MARKDOWN       the report written by run.sh                 required
#   HERD_PR_NUMBER      the pull request's number                     required
#   HERD_HEAD_SHA       the pull request's head commit
#   HERD_COMMENT_DIR    where to write the files                      required
#   HERD_ARTIFACT_URL   the HTML report artifact's URL, if uploaded
set -euo pipefail

marker='<!-- herd-report -->'
# GitHub refuses comments over 65,536 characters; leave room for the
# marker and the footer.
limit=64000

md="${HERD_MARKDOWN:?HERD_MARKDOWN is not set}"
pr="${HERD_PR_NUMBER:-}"
dir="${HERD_COMMENT_DIR:?HERD_COMMENT_DIR is not set}"
if ! [[ "$pr" =~ ^[1-9][0-9]{0,9}$ ]]; then
  echo "herd action: comment: \"$pr\" is not a pull request number; comment only runs on pull_request events" >&2
  exit 2
fi
if [ ! -s "$md" ]; then
  echo "herd action: comment: no report at \"$md\" (herd did not write one)" >&2
  exit 2
fi

mkdir -p "$dir"
{
  echo "$marker"
  size=$(wc -c < "$md")
  if [ "$size" -gt "$limit" ]; then
    head -c "$limit" "$md"
    printf '\n\n_(report cut at %d of %d bytes)_\n' "$limit" "$size"
  else
    cat "$md"
  fi
  if [ -n "${HERD_ARTIFACT_URL:-}" ]; then
    printf '\n📄 [Full HTML report](%s)\n' "$HERD_ARTIFACT_URL"
  fi
} > "$dir/comment.md"
echo "$pr" > "$dir/pr-number"
echo "${HERD_HEAD_SHA:-}" > "$dir/head-sha"
echo "comment for pull request #$pr: $(wc -c < "$dir/comment.md") bytes in $dir"
