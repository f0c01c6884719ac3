#!/usr/bin/env bash
# Installs the ASL interpreter run.mjs uses (aws-local-stepfunctions, pinned
# with its whole tree by package.json and package-lock.json beside this
# script) into the git-ignored .tools/sfn, with npm ci. npm serves what it can
# from its cache (~/.npm, --prefer-offline), so a fresh clone on a machine
# that installed it once needs no network.
#
# Idempotent: the stamp names the lock file's hash, so it does nothing until
# package-lock.json changes. SFN_DIR overrides the folder.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${SFN_DIR:-$root/.tools/sfn}
stamp=$dir/.installed-$(sha256sum "$here/package-lock.json" | cut -c1-16)
[ -f "$stamp" ] && exit 0 # checked first: the tests run this before every execution

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "install.sh: Node.js 20 or later (with npm) is required for the local Step Functions interpreter" >&2; exit 1; }
# 3.0.0 declares node >= 22, but on 20 it lacks only Promise.withResolvers,
# which run.mjs supplies.
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "install.sh: Node.js 20 or later is required, found $(node --version)" >&2; exit 1; }

want=$(node -p 'require(process.argv[1]).dependencies["aws-local-stepfunctions"]' "$here/package.json")
mkdir -p "$dir"
rm -f "$dir"/.installed-*
cp "$here/package.json" "$here/package-lock.json" "$dir/"
# --ignore-scripts: nothing in the tree needs an install script; --loglevel
# error hides the engine warning about Node 20 (see above).
npm ci --prefix "$dir" --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error >&2
got=$(node -p 'require(process.argv[1]).version' "$dir/node_modules/aws-local-stepfunctions/package.json")
[ "$got" = "$want" ] || { echo "install.sh: expected aws-local-stepfunctions $want, installed $got" >&2; exit 1; }
touch "$stamp"
echo "aws-local-stepfunctions $got in ${dir#"$root"/}" >&2
