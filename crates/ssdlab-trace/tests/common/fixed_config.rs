//! The property tests' configuration, shared by the three crates' `tests/props.rs` (each
//! includes this file with `#[path]`): `cases` cases, no failure files, a fixed seed. To explore
//! further by hand, `PROPTEST_CASES` and `PROPTEST_RNG_SEED` override the budget and seed.

use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// `shrink` bounds the shrinking steps after a failure (small where each case is a process).
pub fn config(cases: u32, shrink: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let rng_seed = match base.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0x55d1_ab20),
        fixed => fixed,
    };
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { base.cases } else { cases };
    ProptestConfig { cases, failure_persistence: None, rng_seed, max_shrink_iters: shrink, ..base }
}
