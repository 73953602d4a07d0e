#!/usr/bin/env bash
# Produce a fixed set of reference outputs with one ssdlab binary, so that two binaries (say,
# before and after a refactoring) can be shown to simulate identically:
#
#   bash scripts/reference-runs.sh BIN OUTDIR [TRACES_DIR]
#       (TRACES_DIR: relative to the repository, default traces)
#   bash scripts/compare-reference.sh OUTDIR_A OUTDIR_B
#
# BIN runs a fixed set of short simulations (GC-heavy writes, reads, a mix, FLIN with four
# priority classes, the Sprinkler schedulers on shipped traces, WA-BC fairness, FIFO, the
# write cache with copyback and suspension, hybrid and dynamic allocation, background GC, a
# time series, --check, --timeline and --fairness), then `reproduce sprinkler --quick` and
# `reproduce flin --quick`. Everything is written to OUTDIR (emptied first):
#
#   NAME.json               each run's report without its `run` section (wall clock, speed,
#                           memory: the only part of a report that may differ between runs)
#   NAME.txt                each run's printed summary without its `run:` line (same reason)
#   timeline.events.json    the --timeline run's Chrome trace-event JSON
#   fairness.csv            the --csv row of the --fairness run
#   repro-*/results.csv     the reproductions' rows; REPORT.md with its wall time masked; runs/*.json stripped;
#                           repro-sprinkler/workloads/ (its generated synthetic traces)
#   workloads/*.toml        the workload files the runs used (inputs, identical by design)
#
# OUTDIR must be new, empty or an earlier OUTDIR of this script (it holds .reference-runs).
# Each step's wall time and the total are printed (about 1.5 minutes on a 2-core machine,
# most of it `reproduce sprinkler`). The reproductions run with --threads 1 so they leave the
# other core free; their results do not depend on the thread count (every run is
# deterministic and rows are written in grid order, see crates/ssdlab-lab/src/reproduce/mod.rs).
# `run --fairness` has no thread option: its solo runs use every core, and their results do
# not depend on that either.
#
# Presets and traces are passed to BIN as paths relative to the repository (the script runs
# from there); trace paths appear in the reports' workload section, so compare directories
# made with the same TRACES_DIR argument. The workload files are read from OUTDIR/workloads,
# but a report does not name its workload file and they hold synthetic flows only, so no
# output depends on where OUTDIR is.
# Exit status: 0 all done; 1 BIN failed or an output could not be stripped; 2 bad arguments.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BIN OUTDIR [TRACES_DIR]" >&2
  exit 2
fi
bin=$1
out=$2
case $bin in /*) ;; */*) bin=$PWD/$bin ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/.."
traces=${3:-traces}

if ! command -v "$bin" >/dev/null 2>&1; then
  echo "error: $bin is not an executable" >&2
  exit 2
fi
if [ ! -f "$traces/mqsim/tpcc-small.trace" ] || [ ! -f "$traces/mqsim/wsrch-small.trace" ]; then
  echo "error: $traces/mqsim/{tpcc,wsrch}-small.trace not found; pass TRACES_DIR" >&2
  exit 2
fi
# OUTDIR is emptied: refuse anything but a new or empty folder or one this script made.
if [ -e "$out" ] && { [ ! -d "$out" ] || { [ -n "$(ls -A "$out")" ] && [ ! -f "$out/.reference-runs" ]; }; }; then
  echo "error: $out exists and is not empty nor an output of $0" >&2
  exit 2
fi

# Seconds since the start of the script, to 0.1 s.
elapsed() { # [since, in microseconds]
  local now=${EPOCHREALTIME//[!0-9]/}
  local us=$((now - ${1:-$start}))
  printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}
start=${EPOCHREALTIME//[!0-9]/}
rm -rf "$out"
mkdir -p "$out/workloads"
echo "outputs of scripts/reference-runs.sh; emptied by its next run into this folder" >"$out/.reference-runs"
wl=$out/workloads

# The report without `run` (wall clock) and without `ssdlab_source` (the hash of the code that
# made it, which differs between two builds by design). `run` is the report's last top-level
# object; the line before it keeps its trailing comma, which is harmless for diffing.
strip_run() {
  sed -e '/^  "run": {/,/^  }/d' -e '/^  "ssdlab_source": /d' "$1" >"$2"
  if grep -q '"wall_s"' "$2"; then
    echo "error: could not strip the run section of $1" >&2
    exit 1
  fi
}

# Workloads: small versions of what researchers run. The drive is mostly the mqsim-default
# preset shrunk to 256 blocks per plane (64 GiB); preconditioned to 90% with random
# overwrites it starts one block per plane above the GC trigger, so every workload that
# writes more than about 32k pages runs GC in steady state.
flow() { # name read_ratio queue_depth requests [request_bytes]
  printf '[[flows]]\nname = "%s"\ntype = "synthetic"\nread_ratio = %s\nrequest_bytes = %s\nqueue_depth = %s\nrequests = %s\n' \
    "$1" "$2" "${5:-4096}" "$3" "$4"
}
pre='seed = 7\n[precondition]\noccupancy = 0.9\npattern = "random"\n'
# shellcheck disable=SC2059 # $pre is a format without arguments
{
  { printf "$pre"; flow w 0.0 32 300000; } >"$wl/gc-writes.toml"
  { printf "$pre"; flow w 0.0 32 150000; } >"$wl/gc-writes-short.toml"
  { printf 'seed = 7\n'; flow a 1.0 16 100000; flow b 1.0 16 100000; } >"$wl/reads.toml"
  { printf 'seed = 7\n'; flow m 0.7 32 200000; } >"$wl/mixed.toml"
  # Reads and writes on a full drive: GC, suspensions (reads arriving during programs).
  { printf "$pre"; flow m 0.5 32 200000; } >"$wl/gc-mixed.toml"
  # Four tenants, one per NVMe priority class (FLIN's classes; FLIN also charges GC).
  {
    printf "$pre"
    flow urgent 0.9 8 30000; printf 'priority = "urgent"\n'
    flow high 0.5 16 40000; printf 'priority = "high"\n'
    flow medium 0.0 32 60000; printf 'priority = "medium"\n'
    flow low 1.0 32 8000 65536; printf 'priority = "low"\nalign_bytes = 65536\n'
  } >"$wl/four-priorities.toml"
  # Overlapping requests on a small footprint (hazards), FUA writes, TRIMs, mixed sizes.
  {
    printf "$pre"
    flow hot 0.5 32 100000
    printf 'footprint = 0.001\nfua_ratio = 0.05\ntrim_ratio = 0.05\nrequest_bytes_choices = [[4096, 0.6], [16384, 0.3], [65536, 0.1]]\n'
  } >"$wl/overlap.toml"
  # Hot/cold writes beside a sequential reader of large requests.
  {
    printf "$pre"
    flow hotcold 0.2 32 150000; printf 'address = "hotcold"\nhot_fraction = 0.1\nhot_access = 0.9\n'
    flow seq 1.0 8 8000 131072; printf 'address = "sequential"\nalign_bytes = 131072\n'
  } >"$wl/hotcold.toml"
  # Open-loop (Poisson) requests below the drive's rate: chips fall idle, background GC runs.
  { printf "$pre"; flow w 0.3 64 60000; printf 'rate_iops = 20000.0\n'; } >"$wl/open-loop.toml"
  # Two tenants for WA-BC and --fairness: a reader and a writer.
  { printf "$pre"; flow r 1.0 32 60000; flow w 0.0 32 60000; } >"$wl/two-tenants.toml"
}

mq=presets/mqsim-default.toml
spk=presets/sprinkler-64chip.toml
small="--set nand.blocks_per_plane=256"
tpcc=$traces/mqsim/tpcc-small.trace
wsrch=$traces/mqsim/wsrch-small.trace
# A trace given directly replays at its timestamps; wsrch-small is light at its own pace
# (25k requests over 60 s), so it is also replayed in closed loop, as `reproduce` does.
closed="--replay closed_loop --queue-depth 256"
# name|arguments of `BIN run` (--out is added below)
runs=(
  "gc-writes|--config $mq --workload $wl/gc-writes.toml $small"
  "reads|--config $mq --workload $wl/reads.toml"
  "mixed|--config $mq --workload $wl/mixed.toml"
  "flin-priorities|--config $mq --workload $wl/four-priorities.toml $small --set tsu.policy=flin --set hif.arbitration=weighted_round_robin"
  "spk3-wsrch|--config $spk --workload $wsrch $closed --set hil.scheduler=spk3"
  "spk2-tpcc|--config $spk --workload $tpcc $closed --set hil.scheduler=spk2"
  "spk1-wsrch|--config $spk --workload $wsrch $closed --set hil.scheduler=spk1"
  "pas-tpcc|--config $spk --workload $tpcc --set hil.scheduler=pas"
  "vas-wsrch|--config $spk --workload $wsrch $closed --set hil.scheduler=vas"
  "spk3-wabc-flin|--config presets/flin.toml --workload $wl/two-tenants.toml $small --set hil.scheduler=spk3 --set hil.fairness=wa_bc --set hil.plane_slots=4"
  "fifo-gc|--config $mq --workload $wl/gc-writes-short.toml $small --set tsu.policy=fifo"
  # A 16 MiB cache so that it writes back; with its writes completing at DRAM speed the chips
  # never idle, so GC would only start at the user reserve: raise it to 4% to see GC work.
  "cache-copyback-suspend|--config $mq --workload $wl/gc-mixed.toml $small --set cache.enabled=true --set cache.capacity_bytes=16777216 --set ftl.gc.copyback=true --set nand.suspension.enabled=true --set ftl.gc.hard_threshold=0.04"
  "cw-strict|--config $mq --workload $wl/overlap.toml $small --set ftl.allocation=CW --set hil.hazards=strict"
  "dynamic|--config $mq --workload $wl/hotcold.toml $small --set ftl.allocation=dynamic"
  "background-gc|--config $mq --workload $wl/open-loop.toml $small --set ftl.gc.background_threshold=0.1"
  "time-series|--config $mq --workload $wl/gc-mixed.toml $small --set stats.interval_us=5000"
  "check|--config $mq --workload $wl/overlap.toml $small --check"
  "timeline|--config $mq --workload $wl/gc-mixed.toml $small --timeline $out/timeline.events.json --timeline-window 0:3000"
  # --csv writes the summary row, simulation results only (no wall clock).
  "fairness|--config $mq --workload $wl/two-tenants.toml $small --fairness --csv $out/fairness.csv"
)

for r in "${runs[@]}"; do
  name=${r%%|*}
  t0=${EPOCHREALTIME//[!0-9]/}
  # shellcheck disable=SC2086 # the argument list is split on purpose
  if ! "$bin" run ${r#*|} --out "$out/$name.full.json" >"$out/$name.full.txt" 2>"$out/$name.log"; then
    cat "$out/$name.log" "$out/$name.full.txt" >&2
    echo "error: run $name failed" >&2
    exit 1
  fi
  strip_run "$out/$name.full.json" "$out/$name.json"
  # The summary's `run:` line is the wall-clock section (time, speed, memory).
  grep -v '^run: ' "$out/$name.full.txt" >"$out/$name.txt"
  if grep -q ' wall' "$out/$name.txt"; then
    echo "error: could not strip the run line of $name's summary" >&2
    exit 1
  fi
  rm "$out/$name.full.json" "$out/$name.full.txt" "$out/$name.log"
  printf 'run %-24s %5s s\n' "$name" "$(elapsed "$t0")" >&2
done

for paper in sprinkler flin; do
  dir=$out/repro-$paper
  t0=${EPOCHREALTIME//[!0-9]/}
  if ! "$bin" reproduce "$paper" --quick --threads 1 --traces "$traces" --out "$dir" >"$out/repro-$paper.log" 2>&1; then
    cat "$out/repro-$paper.log" >&2
    echo "error: reproduce $paper failed" >&2
    exit 1
  fi
  rm "$out/repro-$paper.log"
  # REPORT.md states the reproduction's wall time ("(158 runs, 53 s wall on 1 threads)"),
  # which differs from run to run: mask it. The rest is derived from the results.
  sed -i -E 's/, [0-9]+ s wall on /, N s wall on /' "$dir/REPORT.md"
  if ! grep -q ', N s wall on ' "$dir/REPORT.md"; then
    echo "error: could not mask the wall time in $dir/REPORT.md" >&2
    exit 1
  fi
  # Each run's report, kept in runs/ for --resume: strip it like the others.
  for r in "$dir"/runs/*.json; do
    strip_run "$r" "$r.stripped"
    mv "$r.stripped" "$r"
  done
  # The figures are drawings of results.csv, not simulation output: leave them out.
  rm -f "$dir"/*.png
  printf 'reproduce %-18s %5s s\n' "$paper" "$(elapsed "$t0")" >&2
done

echo "reference outputs of $bin in $out; total wall time $(elapsed) s"
