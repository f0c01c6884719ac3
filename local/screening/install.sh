#!/usr/bin/env bash
# Installs yente, OpenSanctions' screening API (pinned in requirements.txt
# beside this file, with every package it pulls in), into a virtual
# environment at ~/.cache/evs/yente-<version>, outside the clone, shared by
# every clone on the machine. local/stack/stack.sh install (and start) runs
# it; the stack's yente service runs <dir>/bin/yente. The version is
# requirements.txt's yente pin.
#
# Idempotent (local/pipvenv.sh): nothing happens once the folder holds this
# version with these pins (the stamp names requirements.txt's checksum, so
# a changed pin rebuilds it). pyicu has no wheel on PyPI and compiles from
# source the first time (libicu-dev, pkg-config and g++, installed with
# apt-get when missing); pip keeps the wheel it built in ~/.cache/pip, so a
# rebuild later does not compile it again. YENTE_DIR overrides the folder.
# Sourced, it installs and leaves the folder in yente_dir.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../pipvenv.sh
. "$here/../pipvenv.sh"
requirements="$here/requirements.txt"
yente_version=$(sed -n 's/^yente==//p' "$requirements")
yente_pins=$(sha256sum "$requirements" | cut -c1-12)
yente_dir=${YENTE_DIR:-$HOME/.cache/evs/yente-$yente_version}

# pyicu's build needs ICU's headers, pkg-config to find them, and a C++
# compiler; the venv needs Python's venv module.
yente_build_deps() {
  local missing=()
  command -v pkg-config >/dev/null && pkg-config --exists icu-uc 2>/dev/null || missing+=(libicu-dev pkg-config)
  command -v g++ >/dev/null || missing+=(g++)
  "${PYTHON:-python3}" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || { echo "install.sh: yente's build needs ${missing[*]}: install them" >&2; exit 1; }
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "installing ${missing[*]} with apt-get (to build pyicu for yente) ..." >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

if ! { [ -x "$yente_dir/bin/yente" ] && [ -f "$yente_dir/.installed-$yente_version-$yente_pins" ]; }; then
  yente_build_deps
  echo "installing yente $yente_version into $yente_dir (the first time about 1.5 to 3.5 minutes: pyicu compiles) ..." >&2
fi
# One argument for pip: --requirement=FILE.
pip_venv_into "$yente_dir" "$yente_version-$yente_pins" yente "--requirement=$requirements"
