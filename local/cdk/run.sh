#!/usr/bin/env bash
# Runs the pinned CDK CLI that install.sh installed (make cdk-install) with
# its arguments, without telemetry, version checks or notices' network
# fetches; its exit status is this script's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
want=$(node -p 'require(process.argv[1]).dependencies["aws-cdk"]' "$here/package.json")
dir=${CDK_DIR:-$HOME/.cache/evs/aws-cdk-$want}
bin=$dir/node_modules/.bin/cdk
[ -x "$bin" ] || { echo "run.sh: no CDK CLI in $dir: run make cdk-install" >&2; exit 1; }

export CDK_DISABLE_CLI_TELEMETRY=true CDK_DISABLE_VERSION_CHECK=1
exec "$bin" "$@"
