#!/usr/bin/env bash
# The HTML report (`harness run --html`) in a real browser: Debian's headless Chromium loads it
# with no console message, its rendered DOM holds the table (a row per point and controller)
# and every plot, and a screenshot of it is written for a person to look at.
#
#   bash harness/tests/browser/html-report.sh [--install] [OUT_DIR]
#
# --install installs chromium-headless-shell with apt-get when no Chromium is on the PATH.
# Uses target/debug/harness (the test build's; HARNESS=... to use another). Exits non-zero on
# any failed check.
set -euo pipefail
cd "$(dirname "$0")/../../.."

install=false
if [ "${1:-}" = "--install" ]; then
  install=true
  shift
fi
out=${1:-target/html-report-check}
harness=${HARNESS:-target/debug/harness}

browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ] && $install; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null
  browser=$(command -v chromium-headless-shell)
fi
if [ -z "$browser" ]; then
  echo "no Chromium found (install chromium-headless-shell, or pass --install)" >&2
  exit 1
fi

mkdir -p "$out"
report="$out/report.html"
rm -f "$report" "$out/dom.html" "$out/browser.log" "$out/report.png"
# A grid with one axis (speed, 6 points) and two controllers: the table, the goodput-vs-speed
# plot, and per point a goodput and a cwnd plot.
"$harness" run --preset abra-speed --controllers newreno,karak --seeds 2 --duration 20s \
  --html "$report" --quiet
points=6
controllers=2
plots=$((1 + 2 * points))

url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
flags=(--no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0)
"$browser" "${flags[@]}" --dump-dom "$url" >"$out/dom.html" 2>"$out/browser.log"

fail=0
check() {
  if eval "$2"; then
    echo "ok: $1"
  else
    echo "FAILED: $1" >&2
    fail=1
  fi
}
count() { grep -o "$1" "$out/dom.html" | wc -l; }
check "the page loads with no console message" "! grep -q 'CONSOLE' '$out/browser.log'"
check "the rendered DOM has the report's sections" \
  "grep -q 'id=\"scenario\"' '$out/dom.html' && grep -q 'id=\"results\"' '$out/dom.html' && grep -q 'id=\"provenance\"' '$out/dom.html'"
check "the summary table has a row per point and controller (and a header)" \
  "[ \$(count '<tr') -eq $((points * controllers + 1)) ]"
check "every plot is rendered inline ($plots SVGs)" "[ \$(count '<svg') -eq $plots ]"
check "the command line and the versions are shown" \
  "grep -q 'abra-speed' '$out/dom.html' && grep -q 'quinn-proto' '$out/dom.html'"

"$browser" "${flags[@]}" --window-size=1280,4000 --screenshot="$out/report.png" "$url" \
  >/dev/null 2>>"$out/browser.log"
check "a screenshot was written" "[ -s '$out/report.png' ] && [ \$(stat -c %s '$out/report.png') -gt 50000 ]"
echo "screenshot: $out/report.png"
exit $fail
