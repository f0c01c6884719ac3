#!/usr/bin/env bash
# Installs moto's server (an S3-compatible server in Python, pinned below)
# into a virtual environment at ~/.cache/evs/moto-<version>, outside the
# clone, shared by every clone on the machine. Only the blob store's S3
# test (shared/blob) uses it: it starts the server on a free port and stops
# it.
#
# Idempotent (local/pipvenv.sh): it does nothing once the folder holds the
# pinned version. MOTO_DIR overrides the folder; the test finds it the same
# way.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=5.2.1
. "$here/../pipvenv.sh"
pip_venv_into "${MOTO_DIR:-$HOME/.cache/evs/moto-$version}" "$version" moto_server "moto[server]==$version"
