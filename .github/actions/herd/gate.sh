#!/usr/bin/env bash
# The action's last step: fails the job with herd's exit code, after the
# summary, artifact and comment steps have run.
#
#   HERD_EXIT_CODE   herd's exit code (from run.sh)
#   HERD_VERDICT     the verdict (from run.sh)
set -euo pipefail

code="${HERD_EXIT_CODE:-}"
if ! [[ "$code" =~ ^[0-9]+$ ]]; then
  echo "herd action: herd did not run (no exit code)" >&2
  exit 2
fi
case "$code" in
  0) echo "herd: ${HERD_VERDICT:-done}" ;;
  1) echo "::error title=herd::${HERD_VERDICT:-NOT READY}: a readiness threshold failed (see the job summary)" ;;
  2) echo "::error title=herd::bad usage or input (exit 2): see the herd step's log" ;;
  3) echo "::error title=herd::the target could not be reached or broke (exit 3)" ;;
  *) echo "::error title=herd::herd exited with code $code" ;;
esac
exit "$code"
