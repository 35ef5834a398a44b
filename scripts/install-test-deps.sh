#!/usr/bin/env bash
# Installs what the tests that look at accelopt as a person would need (tests/ui): Debian's
# chromium for the report pages, tmux for the progress view. Called by scripts/test.sh; not
# needed to build or run accelopt. Idempotent.
#
# Chromium is ~395 MiB installed (26 packages on the Debian 12 image) plus ~120 MiB of downloads
# while it installs (docs/performance.md, "CI disk"). When the disk has less than
# ACCELOPT_MIN_FREE_MB (default 1024) free, it is not installed and the browser test skips
# itself, so CI never fails for space; ACCELOPT_SKIP_BROWSER=1 skips it on purpose.
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
install() {
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
  $SUDO apt-get clean  # the downloaded .deb files: ~120 MiB for chromium
}
installed tmux || install tmux
if [ "${ACCELOPT_SKIP_BROWSER:-0}" = 1 ] || installed chromium; then exit 0; fi
free_mb=$(df -Pm /var/cache/apt | awk 'NR == 2 {print $4}')
need_mb=${ACCELOPT_MIN_FREE_MB:-1024}
if [ "$free_mb" -lt "$need_mb" ]; then
  echo "install-test-deps: only ${free_mb} MB free (< ${need_mb}); chromium not installed, the browser test will skip" >&2
  exit 0
fi
install chromium
echo "install-test-deps: chromium installed; $(df -Pm /var/cache/apt | awk 'NR == 2 {print $4}') MB free"
