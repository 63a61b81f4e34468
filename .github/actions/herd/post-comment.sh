#!/usr/bin/env bash
# Posts the herd report on its pull request as one sticky comment: the
# comment that starts with the hidden marker is updated, or else created.
# Runs in a workflow_run workflow (base repository, write token) on the
# files comment.sh saved, which come from the pull request's run and so are
# untrusted: the PR number must be a number, and that pull request's head
# must be the commit the run tested, so a fork cannot aim the comment at
# another pull request.
#
#   GH_TOKEN            a token that may write pull-request comments   required
#   HERD_REPO           owner/name of the base repository              required
#   HERD_COMMENT_DIR    the downloaded comment artifact                required
#   HERD_HEAD_SHA       the head commit of the run (workflow_run.head_sha) required
#   HERD_COMMENT_AUTHOR whose comment to update   default github-actions[bot]
#   GH                  the GitHub CLI            default gh
set -euo pipefail

marker='<!-- herd-report -->'
gh="${GH:-gh}"
repo="${HERD_REPO:?HERD_REPO is not set (owner/name)}"
dir="${HERD_COMMENT_DIR:?HERD_COMMENT_DIR is not set}"
head_sha="${HERD_HEAD_SHA:?HERD_HEAD_SHA is not set (github.event.workflow_run.head_sha)}"
author="${HERD_COMMENT_AUTHOR:-github-actions[bot]}"
body="$dir/comment.md"

if ! [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  echo "herd comment: HERD_REPO \"$repo\" is not owner/name" >&2
  exit 2
fi
# The login goes into a jq filter below: a GitHub login (or an app's
# NAME[bot]) has no character that could end the string it sits in.
if ! [[ "$author" =~ ^[A-Za-z0-9-]+(\[bot\])?$ ]]; then
  echo "herd comment: HERD_COMMENT_AUTHOR \"$author\" is not a GitHub login" >&2
  exit 2
fi
if [ ! -f "$dir/pr-number" ] || [ ! -f "$body" ]; then
  echo "herd comment: $dir has no pr-number or comment.md: was the herd action run with comment: true on a pull request?" >&2
  exit 2
fi
pr="$(head -c 16 "$dir/pr-number" | tr -d '[:space:]')"
if ! [[ "$pr" =~ ^[1-9][0-9]{0,9}$ ]]; then
  echo "herd comment: pr-number \"$pr\" is not a pull request number" >&2
  exit 2
fi
if [ "$(head -c ${#marker} "$body")" != "$marker" ]; then
  echo "herd comment: comment.md does not start with $marker; refusing to post it" >&2
  exit 2
fi
if [ "$(wc -c < "$body")" -gt 65536 ]; then
  echo "herd comment: comment.md is over 65,536 bytes; GitHub would refuse it" >&2
  exit 2
fi

pr_head="$("$gh" api "repos/$repo/pulls/$pr" --jq .head.sha)"
if [ "$pr_head" != "$head_sha" ]; then
  echo "herd comment: pull request #$pr is at ${pr_head:-?}, but the run tested $head_sha; not posting (the PR moved on, or the artifact names another PR)" >&2
  exit 0
fi

# Every matching id, then the first: piping into `head -n 1` would close
# the pipe while gh may still write another page, and with pipefail gh's
# broken-pipe exit would end the script.
ids="$("$gh" api --paginate "repos/$repo/issues/$pr/comments" \
  --jq ".[] | select(.user.login == \"$author\" and (.body | startswith(\"$marker\"))) | .id")"
id="${ids%%$'\n'*}"
if [ -n "$id" ]; then
  if ! [[ "$id" =~ ^[0-9]+$ ]]; then
    echo "herd comment: unexpected comment id \"$id\"" >&2
    exit 1
  fi
  "$gh" api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$body" --silent
  echo "updated the herd comment on #$pr (comment $id)"
else
  "$gh" api --method POST "repos/$repo/issues/$pr/comments" -F "body=@$body" --silent
  echo "posted the herd comment on #$pr"
fi
