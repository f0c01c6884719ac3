# Sourced by the install.sh of a pinned npm tool kept outside the clone
# (local/redocly, local/axe): npm_ci_into HERE DIR LABEL installs the
# package.json and package-lock.json of the folder HERE into DIR with npm
# ci, in a temporary folder moved into place once the caller's installed
# function accepts it, so a concurrent reader never sees half an install.
# npm serves what it can from its own cache (~/.npm, --prefer-offline);
# --ignore-scripts: the packages need no install script.
npm_ci_into() {
  local here=$1 dir=$2 label=$3 tmp
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$dir.tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cp "$here/package.json" "$here/package-lock.json" "$tmp/"
  npm ci --prefix "$tmp" --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error >&2
  installed "$tmp" || { echo "install.sh: npm ci did not install $label" >&2; exit 1; }
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  echo "$label in $dir" >&2
}
