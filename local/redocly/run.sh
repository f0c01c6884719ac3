#!/usr/bin/env bash
# Runs the pinned Redocly CLI that install.sh installed (make redocly-install)
# with its arguments: no telemetry, no update notice or announcement. Redocly
# CLI opens runs with boxed notices on stderr that are not about the run (on
# Node.js 20 "Node.js 20 support is ending"; "build-docs now renders docs
# with Redoc 3", which tells the reader to run npx): those boxes are dropped,
# everything else it writes passes through unchanged, and its exit status is
# this script's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
want=$(node -p 'require(process.argv[1]).dependencies["@redocly/cli"]' "$here/package.json")
dir=${REDOCLY_DIR:-$HOME/.cache/evs/redocly-$want}
bin=$dir/node_modules/.bin/redocly
[ -x "$bin" ] || { echo "run.sh: no Redocly CLI in $dir: run make redocly-install" >&2; exit 1; }

export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true REDOCLY_SUPPRESS_NOTIFICATIONS=true

# A notice is a box from a line with ╔ to a line with ╚, with a blank line
# before and after; a box that is none of the known notices is printed as it
# came.
drop_notices() {
  awk '
    function release() { if (held) print ""; held = 0 }
    function flush() { release(); for (i = 1; i <= n; i++) print box[i]; n = 0 }
    inbox {
      box[++n] = $0
      if ($0 ~ /Node\.js 20 support is ending|now renders docs with Redoc 3/) notice = 1
      if ($0 ~ /╚/) {
        inbox = 0
        if (notice) { n = 0; held = 0; skipblank = 1 } else flush()
      }
      next
    }
    /╔/ { inbox = 1; notice = 0; n = 0; box[++n] = $0; next }
    /^[[:space:]]*$/ {
      if (skipblank) { skipblank = 0; next }
      release(); held = 1; next
    }
    { skipblank = 0; release(); print }
    END { if (inbox) flush(); release() }
  '
}

# stderr through the filter, stdout as it is; pipefail gives redocly's status.
{ "$bin" "$@" 2>&1 1>&3 3>&- | drop_notices >&2; } 3>&1
