#!/usr/bin/env bash
# Installs Redocly CLI (pinned by package.json and package-lock.json beside
# this script; one bundled package, no dependencies) into
# ~/.cache/evs/redocly-<version>, a cache outside the clone that every clone
# on the machine shares, with npm ci. npm serves what it can from its own
# cache (~/.npm, --prefer-offline), so a fresh clone on a machine that
# installed it once needs no network.
#
# Idempotent: it does nothing when that folder already holds the pinned
# version. A new version in package.json goes to a folder of its own. The
# install is made in a temporary folder and moved into place, so a
# concurrent run of redocly never sees half an install. REDOCLY_DIR
# overrides the folder; run.sh finds it the same way.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "install.sh: Node.js (20.19 or later, with npm) is required for Redocly CLI" >&2; exit 1; }

want=$(node -p 'require(process.argv[1]).dependencies["@redocly/cli"]' "$here/package.json")
dir=${REDOCLY_DIR:-$HOME/.cache/evs/redocly-$want}
installed() {
  [ -x "$1/node_modules/.bin/redocly" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$1/node_modules/@redocly/cli/package.json" 2>/dev/null)" = "$want" ]
}
installed "$dir" && exit 0

# Redocly CLI declares node ">=22.12.0 || >=20.19.0 <21.0.0".
read -r major minor < <(node -p 'process.versions.node.split(".").slice(0, 2).join(" ")')
if ! { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; } && ! { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } && [ "$major" -lt 23 ]; then
  echo "install.sh: Redocly CLI $want needs Node.js 20.19+ or 22.12+, found $(node --version)" >&2
  exit 1
fi

. "$here/../npmci.sh"
npm_ci_into "$here" "$dir" "Redocly CLI $want"
