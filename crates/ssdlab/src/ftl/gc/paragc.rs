//! ParaGC — parallel GC (PaGC; Shahidi, Arjomand, Jung, Kandemir, Das, Sivasubramaniam, SC
//! 2016), one of SPD's baselines (docs/techniques.md §3.6, §11.3 item 9).
//!
//! When a plane needs GC, the other planes of its die would sit idle during the moves; ParaGC
//! collects them at the same time. Reading of §11.3 item 9 [I]: with `ftl.gc.unit = "para"`,
//! when GC starts on a plane, every other plane of the die that is not collecting starts too,
//! each on its own greedy victim; moves stay within their planes and pair into multi-plane
//! commands only where their page offsets happen to match, and each plane erases its victim
//! on its own. (The slides' §3.6 variant — collect the paired block only if it has enough
//! invalid pages — is not built.)

use crate::nand::Geometry;

/// The other planes of `plane`'s die.
pub fn siblings(geo: &Geometry, plane: u32) -> impl Iterator<Item = u32> {
    let n = geo.planes_per_die;
    let first = plane / n * n;
    (first..first + n).filter(move |&q| q != plane)
}
