#!/usr/bin/env bash
# Compare two directories made by scripts/reference-runs.sh (two binaries, or one binary run
# twice): every file (stripped reports, the timeline, the --csv row, the reproductions'
# results.csv and REPORT.md, the workload files) must be byte-identical and present in both.
#
#   bash scripts/compare-reference.sh DIR_A DIR_B
#
# Lists each differing or missing file, with the first lines of its diff (DIFF_LINES, default
# 10; 0 for none). Exit status: 0 identical; 1 something differs; 2 bad arguments.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 DIR_A DIR_B" >&2
  exit 2
fi
a=$1
b=$2
lines=${DIFF_LINES:-10}
for d in "$a" "$b"; do
  # A missing or empty directory must not compare equal to another one.
  if [ ! -d "$d" ] || [ ! -f "$d/repro-flin/results.csv" ] || ! compgen -G "$d/*.json" >/dev/null; then
    echo "error: $d is not an output directory of scripts/reference-runs.sh" >&2
    exit 2
  fi
done

mapfile -t files < <({ (cd "$a" && find . -type f) && (cd "$b" && find . -type f); } | sed 's|^\./||' | LC_ALL=C sort -u)

bad=()
for f in "${files[@]}"; do
  if [ ! -f "$a/$f" ]; then
    bad+=("$f (only in $b)")
  elif [ ! -f "$b/$f" ]; then
    bad+=("$f (only in $a)")
  elif ! cmp -s "$a/$f" "$b/$f"; then
    bad+=("$f")
    if [ "$lines" -gt 0 ]; then
      echo "--- $f" >&2
      diff "$a/$f" "$b/$f" | head -n "$lines" >&2 || true
    fi
  fi
done

if [ ${#bad[@]} -gt 0 ]; then
  echo "${#bad[@]} of ${#files[@]} files differ between $a and $b:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "identical: ${#files[@]} files in $a and $b"
