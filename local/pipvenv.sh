# Sourced by the install.sh of a pinned Python tool kept outside the clone
# (local/moto, local/checkov): pip_venv_into DIR VERSION BIN REQUIREMENT
# installs REQUIREMENT with pip into a virtual environment at DIR, unless
# DIR/bin/BIN and the stamp DIR/.installed-VERSION (written last) are
# there. A venv's scripts name its own folder, so it is built in place,
# under a lock: a concurrent run waits and then finds it installed. pip
# serves what it can from its cache (~/.cache/pip). PYTHON names the
# interpreter (python3).
pip_venv_into() {
  local dir=$1 version=$2 bin=$3 requirement=$4 python=${PYTHON:-python3}
  _pip_venv_installed() { [ -x "$dir/bin/$bin" ] && [ -f "$dir/.installed-$version" ]; }
  _pip_venv_installed && return 0
  command -v "$python" >/dev/null || { echo "install.sh: Python 3 is required for $requirement" >&2; exit 1; }
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
  _pip_venv_installed && return 0
  rm -rf "$dir"
  "$python" -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
  touch "$dir/.installed-$version"
  _pip_venv_installed || { echo "install.sh: $bin $version is not in $dir" >&2; exit 1; }
  echo "$requirement in $dir" >&2
}
