#!/usr/bin/env bash
# Installs the AWS CDK CLI (pinned by package.json and package-lock.json
# beside this script; one bundled package) into
# ~/.cache/evs/aws-cdk-<version>, a cache outside the clone that every clone
# on the machine shares, with npm ci (local/npmci.sh). make synth, make
# deploy and make rehearse run it through run.sh. npm serves what it can
# from its own cache (~/.npm, --prefer-offline).
#
# The pin matters: aws-cdk-lib 2.270 writes cloud assembly schema 54, which
# CLI 2.1148.1 reads (it bundles schema 55); npm's "latest" tag (3.0.0)
# reads an older schema.
#
# Idempotent: it does nothing when that folder already holds the pinned
# version; a new version in package.json goes to a folder of its own.
# CDK_DIR overrides the folder; run.sh finds it the same way.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "install.sh: Node.js (with npm) is required for the CDK CLI" >&2; exit 1; }

want=$(node -p 'require(process.argv[1]).dependencies["aws-cdk"]' "$here/package.json")
dir=${CDK_DIR:-$HOME/.cache/evs/aws-cdk-$want}
installed() {
  [ -x "$1/node_modules/.bin/cdk" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$1/node_modules/aws-cdk/package.json" 2>/dev/null)" = "$want" ]
}
installed "$dir" && exit 0

. "$here/../npmci.sh"
npm_ci_into "$here" "$dir" "AWS CDK CLI $want"
