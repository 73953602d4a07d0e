//! The integrity soak's combinations that once hung, run as the soak runs them.

use ssdlab::ftl::{AllocationScheme, MappingKind};
use ssdlab_lab::soak::{self, CacheMode, Combination, GcMode, Planned};

/// One combination as the soak runs it, on a thread of its own with a time limit, so that a
/// livelock fails instead of hanging the suite.
fn run_with_time_limit(planned: Planned, writes: u64) -> soak::SoakResult {
    let name = planned.combination.name();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(soak::run_one(&planned, writes, 1)));
    rx.recv_timeout(std::time::Duration::from_secs(300))
        .unwrap_or_else(|_| panic!("{name}: no result after 300 s (a livelock)"))
}

/// Die-GC (`ftl.gc.unit = "die"`, last group padded) over both partitions, as `ssdlab soak`
/// runs them (its small drive, 90 % full, random 4 and 8 KiB writes at queue depth 32, the
/// oracle on): every request finishes and every read returns the data last written. The
/// channels a partition fills hold aligned sets of N × pages_per_block − 1 valid pages
/// only; Die-GC used to pick them, rewrite each into a set just as full (⌈31 / 2⌉ padded
/// groups = 32 pages) and free nothing, GC after GC, while the dies it held starved the host
/// (simulated time ran on, no request finished: 60,000 writes hung 7 of the 8 soak
/// combinations). Such a set is no victim now (`ftl::gc::die_gc::max_valid`). Each run gets a
/// thread and a time limit, so that a livelock fails instead of hanging the suite.
#[test]
fn die_gc_over_a_partition_finishes_every_request() {
    let (base, _) = soak::drive(None, &[]).expect("the soak's drive");
    let writes = 60_000;
    for allocation in ["lv_partition", "pacp"] {
        let combination = Combination {
            mapping: MappingKind::Full,
            allocation: AllocationScheme::parse(allocation).expect("a scheme"),
            cache: CacheMode::Off,
            gc: GcMode::Die,
        };
        let config = combination.apply(&base);
        config.validate("test").expect("Die-GC with a partition validates");
        let r = run_with_time_limit(Planned { combination, config }, writes);
        assert!(r.passed(), "{}", r.line());
        assert_eq!(r.violations, 0);
        assert!(r.writes > writes * 9 / 10 && r.gc_invocations > 0, "{}", r.line());
    }
}

/// Aligned GC units whose die has no aligned set (issue 31 item 5). Under a static
/// allocation a plane that takes more writes than its die's other plane opens blocks at
/// indexes where the other plane's blocks are still free, so no index is closed on both:
/// Die-GC and TwinBlk found no set, the plane's user writes found no page, and nothing could
/// invalidate its pages (its overwrites go to it): 32 requests stayed unfinished forever on
/// these three soak combinations at 200,000 writes. Now such a plane collects a victim of
/// its own (`ftl::gc::Gc::mark_alone`); every request finishes and the data holds.
#[test]
fn aligned_gc_without_an_aligned_set_finishes_every_request() {
    let (base, _) = soak::drive(None, &[]).expect("the soak's drive");
    let writes = 200_000;
    let cases = [
        ("CWDP", CacheMode::Off, GcMode::Die),
        ("CWD", CacheMode::Spd, GcMode::Twin),
        ("dynamic_rr", CacheMode::Evicted, GcMode::Twin),
    ];
    for (allocation, cache, gc) in cases {
        let combination = Combination {
            mapping: MappingKind::Full,
            allocation: AllocationScheme::parse(allocation).expect("a scheme"),
            cache,
            gc,
        };
        let config = combination.apply(&base);
        config.validate("test").expect("the combination validates");
        let r = run_with_time_limit(Planned { combination, config }, writes);
        assert!(r.passed(), "{}", r.line());
        assert_eq!(r.violations, 0);
        assert!(r.writes > writes * 9 / 10 && r.gc_invocations > 0, "{}", r.line());
    }
}
