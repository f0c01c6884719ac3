#!/usr/bin/env bash
# Installs moto's server (an S3-compatible server in Python, pinned below)
# into a virtual environment at ~/.cache/evs/moto-<version>, outside the
# clone, shared by every clone on the machine. Only the blob store's S3
# test (shared/blob) uses it: it starts the server on a free port and stops
# it. pip serves what it can from its cache (~/.cache/pip).
#
# Idempotent: it does nothing once the folder holds the pinned version (the
# stamp .installed-<version>, written last). A venv's scripts name its own
# folder, so it is built in place, under a lock: a concurrent run waits and
# then finds it installed. MOTO_DIR overrides the folder; the test finds it
# the same way.
set -euo pipefail

version=5.2.1
dir=${MOTO_DIR:-$HOME/.cache/evs/moto-$version}
python=${PYTHON:-python3}

installed() { [ -x "$dir/bin/moto_server" ] && [ -f "$dir/.installed-$version" ]; }
installed && exit 0

command -v "$python" >/dev/null || { echo "install.sh: Python 3 is required for moto's S3 server" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
installed && exit 0
rm -rf "$dir"
"$python" -m venv "$dir"
"$dir/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$version" >&2
touch "$dir/.installed-$version"
installed || { echo "install.sh: moto_server $version is not in $dir" >&2; exit 1; }
echo "moto $version in $dir" >&2
