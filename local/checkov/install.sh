#!/usr/bin/env bash
# Installs checkov (pinned below), the infrastructure-as-code scanner an
# account's security review runs, into a virtual environment at
# ~/.cache/evs/checkov-<version>, outside the clone, shared by every clone
# on the machine. infra/stack's TestCheckov runs it over the production
# stack's synthesized template and template.yaml.
#
# Idempotent (local/pipvenv.sh): it does nothing once the folder holds the
# pinned version. CHECKOV_DIR overrides the folder; the test finds it the
# same way.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=3.3.30
. "$here/../pipvenv.sh"
pip_venv_into "${CHECKOV_DIR:-$HOME/.cache/evs/checkov-$version}" "$version" checkov "checkov==$version"
