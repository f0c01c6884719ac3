#!/usr/bin/env bash
# Installs Chromium from Debian's packages for the settings area's browser
# tests (shared/settings, local/settings_browser_test.go), once: a no-op when
# /usr/bin/chromium answers. apt-get keeps its downloads in its own cache
# (/var/cache/apt). Needs root (CI and this machine run as root); elsewhere
# it says what to run.
set -euo pipefail

# Chromium, and a font for its screenshots to have text in (a bare
# machine may have none).
packages=(chromium fonts-dejavu-core)
if /usr/bin/chromium --version >/dev/null 2>&1 && dpkg -s fonts-dejavu-core >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "browser tests need Chromium: run 'sudo apt-get install chromium' (Debian) or set CHROMIUM to a Chromium binary" >&2
  exit 1
fi
echo "installing chromium from Debian's packages (once)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
/usr/bin/chromium --version
