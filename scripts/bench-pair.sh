#!/usr/bin/env bash
# Paired speed comparison of two ssdlab binaries: ROUNDS rounds of `ssdlab bench --repeat 1`,
# each round running both binaries one after the other, the order alternating between rounds
# so that neither always runs first. Prints, per scenario, the ratio NEW/OLD of requests/s in
# each round and their median. On a shared VM single ratios drift by tens of percent; read the
# median, and prefer many rounds.
#
#   bash scripts/bench-pair.sh OLD_BIN NEW_BIN [ROUNDS] [-- bench options, e.g. --only read]
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_BIN NEW_BIN [ROUNDS] [-- bench options]" >&2
  exit 2
fi
old=$1 new=$2
shift 2
rounds=6
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  rounds=$1
  shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for which in $order; do
    bin=$old
    [ "$which" = new ] && bin=$new
    "$bin" bench --json --repeat 1 "$@" >"$out/$which-$i.json" 2>/dev/null
  done
  echo "round $i of $rounds done" >&2
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
ratios = {}
for i in range(1, rounds + 1):
    old = {r["scenario"]: r["requests_per_s"] for r in json.load(open(f"{out}/old-{i}.json"))}
    new = {r["scenario"]: r["requests_per_s"] for r in json.load(open(f"{out}/new-{i}.json"))}
    for s in old:
        ratios.setdefault(s, []).append(new[s] / old[s])
for s, v in ratios.items():
    print(f"{s:24s} median new/old {statistics.median(v):.3f}  rounds: {' '.join(f'{x:.3f}' for x in v)}")
PY
