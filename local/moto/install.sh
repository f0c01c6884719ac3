#!/usr/bin/env bash
# Installs moto's server (AWS's APIs emulated in Python, pinned below) into
# a virtual environment at ~/.cache/evs/moto-<version>, outside the clone,
# shared by every clone on the machine. The stores' S3 tests start it on a
# free port and stop it; make rehearse runs it through rehearse_server.py
# (the fixes its CloudFormation needs) and deploys the CDK app into it.
#
# Idempotent (local/pipvenv.sh): it does nothing once the folder holds the
# pinned version. MOTO_DIR overrides the folder; the test finds it the same
# way. Sourced (rehearse.sh), it installs and leaves the folder in moto_dir.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=5.2.1
. "$here/../pipvenv.sh"
moto_dir=${MOTO_DIR:-$HOME/.cache/evs/moto-$version}
pip_venv_into "$moto_dir" "$version" moto_server "moto[server]==$version"
