#!/usr/bin/env bash
# Installs herd for the action: `go install` at the requested version, or,
# with HERD_VERSION=local, from the checkout the action runs from (so the
# action can test the herd it ships with). Prints the installed version.
#
#   HERD_VERSION   a module version (v1.2.3), "latest", or "local"
#   HERD_SOURCE    the action's checkout (for "local"); default: this script's repo
set -euo pipefail

version="${HERD_VERSION:-latest}"
source_dir="${HERD_SOURCE:-$(cd "$(dirname "$0")/../../.." && pwd)}"

# A version is a module version or a prefix of one (v1, v1.2, v1.2.3,
# v1.3.0-rc.1): a glob such as v[0-9]* would let anything after the digit
# through to go install, which then fails with its own, less clear error.
if [ "$version" = local ]; then
  (cd "$source_dir" && go install ./cmd/herd)
elif [ "$version" = latest ] || [[ "$version" =~ ^v[0-9]+(\.[0-9]+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  go install "github.com/herd-sh/herd/cmd/herd@${version}"
else
  echo "herd action: herd-version: want latest, local or a version such as v1.2.3, got \"$version\"" >&2
  exit 2
fi

# go install puts herd in GOBIN, or else GOPATH/bin; later steps find it
# on PATH.
bin="$(go env GOBIN)"
[ -n "$bin" ] || bin="$(go env GOPATH)/bin"
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$bin" >> "$GITHUB_PATH"
fi
"$bin/herd" version
