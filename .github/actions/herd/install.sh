#!/usr/bin/env bash
# Installs herd for the action and prints the installed version.
#
#   HERD_VERSION      a release (v1.2.3), "latest", "local", or empty for the
#                     version this action is pinned to (the VERSION file
#                     beside this script; "local" until the first release)
#   HERD_SOURCE       the action's checkout (for "local"); default: this script's repo
#   HERD_RELEASE_URL  where releases are downloaded from
#                     default https://github.com/herd-sh/herd/releases/download
#
# A release version is downloaded as the prebuilt archive for this runner
# and checked against the release's checksums.txt; when the download is not
# possible (no curl, no such archive, no network) it falls back to
# `go install` at that version. A checksum mismatch is never a fallback: it
# fails. "latest" and "local" build with go install.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
version="${HERD_VERSION:-}"
if [ -z "$version" ]; then
  version="$(tr -d '[:space:]' < "$here/VERSION")"
fi
source_dir="${HERD_SOURCE:-$(cd "$here/../../.." && pwd)}"
release_url="${HERD_RELEASE_URL:-https://github.com/herd-sh/herd/releases/download}"

# go install puts herd in GOBIN, or else GOPATH/bin; so does the download,
# and later steps find it on PATH.
bin="${GOBIN:-}"
[ -n "$bin" ] || bin="$(go env GOBIN 2>/dev/null || true)"
[ -n "$bin" ] || bin="$(go env GOPATH)/bin"
mkdir -p "$bin"

# A version is a module version or a prefix of one (v1, v1.2, v1.2.3,
# v1.3.0-rc.1): a glob such as v[0-9]* would let anything after the digit
# through to go install, which then fails with its own, less clear error.
semver='^v[0-9]+(\.[0-9]+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'

# download_release VERSION: 0 when herd was installed from the release
# archive, 1 when it could not be downloaded (the caller falls back), and
# exits 1 when the archive does not match its checksum.
download_release() {
  local v="$1" os arch archive tmp want got
  command -v curl >/dev/null 2>&1 || { echo "herd action: no curl to download the release"; return 1; }
  case "$(uname -s)" in
    Linux) os=linux ;; Darwin) os=darwin ;; MINGW*|MSYS*|CYGWIN*) os=windows ;;
    *) echo "herd action: no release archive for $(uname -s)"; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;;
    *) echo "herd action: no release archive for $(uname -m)"; return 1 ;;
  esac
  archive="herd_${v#v}_${os}_${arch}.tar.gz"
  [ "$os" = windows ] && archive="${archive%.tar.gz}.zip"
  tmp="$(mktemp -d)"
  if ! curl -fsSL --retry 2 -o "$tmp/$archive" "$release_url/$v/$archive" ||
    ! curl -fsSL --retry 2 -o "$tmp/checksums.txt" "$release_url/$v/checksums.txt"; then
    rm -rf "$tmp"
    echo "herd action: could not download $release_url/$v/$archive"
    return 1
  fi
  want="$(awk -v f="$archive" '$2 == f { print $1 }' "$tmp/checksums.txt")"
  got="$(sha256sum "$tmp/$archive" | cut -d' ' -f1)"
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    rm -rf "$tmp"
    echo "herd action: $archive does not match the release's checksums.txt (want ${want:-no entry}, got $got)" >&2
    exit 1
  fi
  if [ "$os" = windows ]; then
    unzip -q -o "$tmp/$archive" herd.exe -d "$bin"
  else
    tar -xzf "$tmp/$archive" -C "$tmp" herd
    install -m 0755 "$tmp/herd" "$bin/herd"
  fi
  rm -rf "$tmp"
  echo "herd action: installed herd $v from the release archive (checksum verified)"
}

if [ "$version" = local ]; then
  (cd "$source_dir" && GOBIN="$bin" go install ./cmd/herd)
elif [ "$version" = latest ]; then
  GOBIN="$bin" go install "github.com/herd-sh/herd/cmd/herd@latest"
elif [[ "$version" =~ $semver ]]; then
  if ! download_release "$version"; then
    echo "herd action: falling back to go install github.com/herd-sh/herd/cmd/herd@$version"
    GOBIN="$bin" go install "github.com/herd-sh/herd/cmd/herd@${version}"
  fi
else
  echo "herd action: herd-version: want latest, local or a version such as v1.2.3, got \"$version\"" >&2
  exit 2
fi

if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$bin" >> "$GITHUB_PATH"
fi
"$bin/herd" version
