#!/usr/bin/env bash
# Installs axe-core (pinned by package.json and package-lock.json beside
# this script; one package, no dependencies) into
# ~/.cache/evs/axe-core-<version>, a cache outside the clone that every
# clone on the machine shares, with npm ci. The browser tests
# (shared/webpage/webpagetest) read its axe.min.js from there and inject it
# into every page they visit; nothing runs it but Chromium. npm serves what
# it can from its own cache (~/.npm, --prefer-offline), so a fresh clone on
# a machine that installed it once needs no network.
#
# Idempotent: it does nothing when that folder already holds the pinned
# version. A new version in package.json goes to a folder of its own (and
# the harness's AxeVersion names it). The install is made in a temporary
# folder and moved into place, so a test running meanwhile never reads half
# an install. AXE_DIR overrides the folder; the harness reads it too.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "install.sh: Node.js (with npm) is required to install axe-core for the browser tests" >&2; exit 1; }

want=$(node -p 'require(process.argv[1]).dependencies["axe-core"]' "$here/package.json")
dir=${AXE_DIR:-$HOME/.cache/evs/axe-core-$want}
installed() {
  [ -s "$1/node_modules/axe-core/axe.min.js" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$1/node_modules/axe-core/package.json" 2>/dev/null)" = "$want" ]
}
installed "$dir" && exit 0

. "$here/../npmci.sh"
npm_ci_into "$here" "$dir" "axe-core $want"
