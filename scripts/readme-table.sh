#!/usr/bin/env bash
# The README's decision table, `harness scorecard decision docs/results/decision.toml`, written
# between the README's `BEGIN decision table` and `END decision table` lines.
# Usage: scripts/readme-table.sh [--check]
#   --check: change nothing; fail (exit 1, with the difference) if the README's table is not
#   what the result files give (CI runs this).
#   HARNESS=path/to/harness selects the binary (default: a release build made here).
set -euo pipefail
# shellcheck source=scripts/check-args.sh
source "$(dirname "$0")/check-args.sh"
check_args 0 1 "[--check]" "$@"
check=false
case ${1:-} in
  "") ;;
  --check) check=true ;;
  *) echo "unknown argument \`$1\` (usage: scripts/readme-table.sh [--check])" >&2; exit 2 ;;
esac
harness=$(harness_binary)
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$harness" scorecard decision docs/results/decision.toml >"$work/table.md"
begin='<!-- BEGIN decision table'
end='<!-- END decision table -->'
if [ "$(grep -c "^$begin" README.md)" != 1 ] || [ "$(grep -cx "$end" README.md)" != 1 ]; then
  echo "README.md must hold one \`$begin ...\` line and one \`$end\` line" >&2
  exit 2
fi
awk -v begin="$begin" -v end="$end" -v table="$work/table.md" '
  index($0, begin) == 1 { print; while ((getline line < table) > 0) print line; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }
' README.md >"$work/README.md"
if $check; then
  diff -u README.md "$work/README.md" || {
    echo "README.md's decision table is not what the result files give: run scripts/readme-table.sh" >&2
    exit 1
  }
else
  cp "$work/README.md" README.md
fi
