#!/usr/bin/env bash
# Build a profile-guided (PGO) ssdlab: the same simulator, laid out by the compiler for the
# paths real runs take, so it runs faster. Results must not change: the script compares two
# of its training runs' reports between the instrumented and the optimised binary.
#
#   bash scripts/pgo-build.sh [TRACES_DIR]      (default traces)
#
# Steps: build an instrumented binary, run a fixed set of short training simulations with it
# (GC-heavy writes, reads, a mix, FLIN, Sprinkler, the write cache, copyback and suspension,
# and the shipped traces when TRACES_DIR exists), merge their profiles with llvm-profdata
# (rustup's llvm-tools component, installed if missing), and build again with the profile.
# The binary lands in target/pgo/use/release/ssdlab; `ssdlab bench` prints `build: pgo`.
# Exit status: 0 built and checked; 2 llvm-profdata missing and not installable; 1 anything
# else (a failed build or run, or different reports). TRACES_DIR is relative to the repository.
set -Eeuo pipefail
# A failing command must not exit with its own status (ssdlab's input errors are 2, which
# means "tool missing" here).
trap 'exit 1' ERR
cd "$(dirname "$0")/.."

traces=${1:-traces}
dir=target/pgo
train=$dir/train

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
  rustup component add llvm-tools >&2 || true
fi
if [ ! -x "$profdata" ]; then
  echo "error: $profdata not found; install it with: rustup component add llvm-tools" >&2
  exit 2
fi

rm -rf "$dir/raw" "$train"
mkdir -p "$dir/raw" "$train"

echo "pgo: building the instrumented binary" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$PWD/$dir/raw" SSDLAB_BUILD=pgo-instrumented \
  cargo build --release --locked --target-dir "$dir/gen" -p ssdlab-cli >&2
gen=$dir/gen/release/ssdlab

# Training workloads: small versions of what researchers run.
flow() { # name read_ratio queue_depth requests
  printf '[[flows]]\nname = "%s"\ntype = "synthetic"\nread_ratio = %s\naddress = "uniform"\nrequest_bytes = 4096\nqueue_depth = %s\nrequests = %s\n' "$@"
}
{ printf 'seed = 7\n[precondition]\noccupancy = 0.9\npattern = "random"\n'; flow w 0.0 32 60000; } >"$train/gc-writes.toml"
{ printf 'seed = 7\n[precondition]\noccupancy = 0.9\npattern = "random"\n'; flow w 0.0 32 20000; } >"$train/gc-writes-small.toml"
{ printf 'seed = 7\n'; flow a 1.0 16 40000; flow b 1.0 16 40000; } >"$train/reads.toml"
{ printf 'seed = 7\n'; flow m 0.7 32 60000; } >"$train/mixed.toml"

small="--set nand.blocks_per_plane=256"
runs=(
  "gc-writes|--config presets/mqsim-default.toml --workload $train/gc-writes.toml $small"
  "gc-writes-flin|--config presets/mqsim-default.toml --workload $train/gc-writes.toml $small --set tsu.policy=flin"
  "reads|--config presets/mqsim-default.toml --workload $train/reads.toml"
  "reads-flin|--config presets/mqsim-default.toml --workload $train/reads.toml --set tsu.policy=flin"
  "mixed|--config presets/mqsim-default.toml --workload $train/mixed.toml"
  "cache|--config presets/mqsim-default.toml --workload $train/gc-writes-small.toml $small --set cache.enabled=true --set ftl.gc.copyback=true --set nand.suspension.enabled=true"
  "fairness|--config presets/flin.toml --workload $train/reads.toml --set hil.scheduler=spk3 --set hil.fairness=wa_bc --set hil.plane_slots=4"
)
if [ -d "$traces/mqsim" ]; then
  runs+=(
    "tpcc|--config presets/mqsim-default.toml --workload $traces/mqsim/tpcc-small.trace"
    "wsrch-spk3|--config presets/sprinkler-64chip.toml --workload $traces/mqsim/wsrch-small.trace --set hil.scheduler=spk3"
  )
else
  echo "pgo: no traces at $traces; training on synthetic workloads only" >&2
fi
for r in "${runs[@]}"; do
  name=${r%%|*}
  echo "pgo: training run $name" >&2
  # shellcheck disable=SC2086 # the argument list is split on purpose
  "$gen" run ${r#*|} --out "$train/$name.json" >/dev/null
done

"$profdata" merge -o "$dir/ssdlab.profdata" "$dir/raw"

echo "pgo: building with the profile" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$PWD/$dir/ssdlab.profdata" SSDLAB_BUILD=pgo \
  cargo build --release --locked --target-dir "$dir/use" -p ssdlab-cli >&2
bin=$dir/use/release/ssdlab

# The profile may change speed, never results: the optimised binary must give the same
# reports (outside `run`, the wall-clock section) as the instrumented one.
# `run` is the report's last top-level object; without it nothing may differ.
strip_run() {
  sed '/^  "run": {/,/^  }/d' "$1" >"$2"
  if grep -q '"wall_s"' "$2"; then
    echo "error: could not strip the run section of $1" >&2
    exit 1
  fi
}
for r in "${runs[0]}" "${runs[3]}"; do
  name=${r%%|*}
  # shellcheck disable=SC2086
  "$bin" run ${r#*|} --out "$train/$name.pgo.json" >/dev/null
  strip_run "$train/$name.json" "$train/$name.sim"
  strip_run "$train/$name.pgo.json" "$train/$name.pgo.sim"
  if ! diff "$train/$name.sim" "$train/$name.pgo.sim" >&2; then
    echo "error: the PGO binary's report of $name differs from the instrumented binary's" >&2
    exit 1
  fi
done
echo "pgo: reports identical; binary at $PWD/$bin" >&2
echo "$PWD/$bin"
