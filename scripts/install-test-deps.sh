#!/usr/bin/env bash
# Installs what the tests that look at accelopt as a person would need (tests/ui): Debian's
# chromium for the report pages, tmux for the progress view. Called by scripts/test.sh; not
# needed to build or run accelopt. Idempotent.
#
# Chromium adds ~430 MiB installed on a fresh Debian 12 CI machine after install-deps.sh, plus
# ~125 MiB of .deb downloads while it installs, removed by `apt-get clean` at once
# (docs/performance/report.md, "CI disk").
#
# Under CI=true both are required: a failed install fails this script, and the ui tests fail (not
# skip) without them. The one exception is the disk: when it has less than ACCELOPT_MIN_FREE_MB
# (default 1024; the install peaks at ~845 MiB) free, chromium is not installed, the reason is
# written to $ACCELOPT_BUILD_DIR/chromium-not-installed.txt (default build/), and the browser test
# reports itself skipped with that reason, under CI too: a CI machine with little disk should not
# fail the release over a browser it has no room for, nor pass it silently.
# ACCELOPT_SKIP_BROWSER=1 skips it on purpose (outside CI).
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
ci=0; case "${CI:-}" in 1|true|TRUE|yes) ci=1 ;; esac
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
install() {
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
  $SUDO apt-get clean  # the downloaded .deb files: ~125 MiB for chromium
}
installed tmux || install tmux
build_dir=${ACCELOPT_BUILD_DIR:-build}
rm -f "$build_dir/chromium-not-installed.txt"
installed chromium && exit 0
free_mb=$(df -Pm /var/cache/apt | awk 'NR == 2 {print $4}')
((ci == 0)) && [ "${ACCELOPT_SKIP_BROWSER:-0}" = 1 ] && exit 0
need_mb=${ACCELOPT_MIN_FREE_MB:-1024}
if [ "$free_mb" -lt "$need_mb" ]; then
  reason="only ${free_mb} MB free on $(df -P /var/cache/apt | awk 'NR == 2 {print $6}'), chromium needs about ${need_mb} MB to install"
  echo "install-test-deps: $reason; chromium not installed, the browser test will report itself skipped" >&2
  mkdir -p "$build_dir" && echo "$reason" >"$build_dir/chromium-not-installed.txt"
  exit 0
fi
echo "install-test-deps: installing chromium (${free_mb} MB free)"
install chromium
echo "install-test-deps: chromium installed; $(df -Pm /var/cache/apt | awk 'NR == 2 {print $4}') MB free"
