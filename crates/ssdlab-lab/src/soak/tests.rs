use super::*;

use ssdlab::ftl::Level;

/// Every `ftl.mapping`, listed here apart from [`MAPPINGS`]. The `match` stops compiling when
/// `MappingKind` gains a variant, so this list cannot silently fall behind the enum.
fn every_mapping() -> Vec<MappingKind> {
    use MappingKind::*;
    let all = vec![Full, Dftl, Cdftl, Tpftl, Fmmu];
    for m in &all {
        match m {
            Full | Dftl | Cdftl | Tpftl | Fmmu => {}
        }
    }
    all
}

/// Every `ftl.allocation`: each string of 1 to 4 distinct letters of C, W, D, P (nested
/// loops, not [`every_order`]) and the named schemes; the `match` stops compiling when
/// `AllocationScheme` gains a variant.
fn every_allocation() -> Vec<AllocationScheme> {
    let letters = ['C', 'W', 'D', 'P'];
    let mut words: Vec<String> = Vec::new();
    for a in letters {
        words.push(a.to_string());
        for b in letters.into_iter().filter(|&b| b != a) {
            words.push(format!("{a}{b}"));
            for c in letters.into_iter().filter(|&c| c != a && c != b) {
                words.push(format!("{a}{b}{c}"));
                let d = letters.into_iter().find(|&d| d != a && d != b && d != c).expect("a fourth letter");
                words.push(format!("{a}{b}{c}{d}"));
            }
        }
    }
    let mut all: Vec<AllocationScheme> = words.iter().map(|w| AllocationScheme::parse(w).unwrap()).collect();
    all.extend([
        AllocationScheme::Dynamic,
        AllocationScheme::DynamicRr,
        AllocationScheme::LvPartition,
        AllocationScheme::Pacp,
    ]);
    for a in &all {
        match a {
            AllocationScheme::Static(_)
            | AllocationScheme::Hybrid { .. }
            | AllocationScheme::Dynamic
            | AllocationScheme::DynamicRr
            | AllocationScheme::LvPartition
            | AllocationScheme::Pacp => {}
        }
    }
    all
}

fn default_plan() -> Plan {
    let (drive, _) = drive(None, &[]).expect("the default soak drive loads");
    plan(&drive, Selection::AllPairs, None)
}

#[test]
fn every_combination_that_runs_validates_and_names_are_unique() {
    let p = default_plan();
    for r in &p.runs {
        r.config.validate("test").unwrap_or_else(|e| panic!("{}: {e}", r.combination.name()));
    }
    let mut names: Vec<String> = p.runs.iter().map(|r| r.combination.name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), p.runs.len(), "names are unique");
}

/// Checked by brute force over the whole cross product, not through [`all_pairs`]: a pair of
/// values that validates together on some point runs on some point, and a pair reported
/// skipped validates on no point.
#[test]
fn every_pair_that_can_validate_runs_and_every_skipped_pair_cannot() {
    let (drive, _) = drive(None, &[]).unwrap();
    let p = default_plan();
    let valid: Vec<Point> = cross().into_iter().filter(|&q| at(q).apply(&drive).validate("t").is_ok()).collect();
    let runs: Vec<String> = p.runs.iter().map(|r| r.combination.name()).collect();
    let names = |q: &Point| at(*q).name().split('/').map(str::to_string).collect::<Vec<_>>();
    for a in 0..4 {
        for b in a + 1..4 {
            for q in &valid {
                let (va, vb) = (&names(q)[a], &names(q)[b]);
                let covered = runs.iter().any(|r| {
                    let parts: Vec<&str> = r.split('/').collect();
                    parts[a] == va && parts[b] == vb
                });
                assert!(covered, "no run has {va} with {vb} though {} validates", at(*q).name());
            }
        }
    }
    let skipped_pairs: Vec<&Skipped> = p.skipped.iter().filter(|s| s.what.contains(" + ")).collect();
    assert!(skipped_pairs.iter().any(|s| s.what == "dftl + die"), "Die-GC needs the full map");
    for s in skipped_pairs {
        let (x, y) = s.what.split_once(" + ").unwrap();
        let held = valid.iter().any(|q| names(q).iter().any(|n| n == x) && names(q).iter().any(|n| n == y));
        assert!(!held, "{} is reported skipped but validates", s.what);
        assert!(s.example.apply(&drive).validate("t").is_err(), "{}", s.what);
    }
}

#[test]
fn the_runs_cover_every_mapping_and_every_allocation_scheme() {
    let p = default_plan();
    let allocations = every_allocation();
    assert_eq!(allocations.iter().filter(|a| matches!(a, AllocationScheme::Static(_))).count(), 24);
    assert_eq!(allocations.iter().filter(|a| matches!(a, AllocationScheme::Hybrid { .. })).count(), 40);
    for a in &allocations {
        assert!(p.runs.iter().any(|r| &r.config.ftl.allocation == a), "no run with ftl.allocation = {a}");
    }
    for m in every_mapping() {
        assert!(p.runs.iter().any(|r| r.config.ftl.mapping == m), "no run with ftl.mapping = {}", m.name());
        // Each map runs with the cache off and on, and with ParaGC, not only in one corner.
        for cache in [false, true] {
            let found = p.runs.iter().any(|r| r.config.ftl.mapping == m && r.config.cache.enabled == cache);
            assert!(found, "no run of {} with the cache enabled = {cache}", m.name());
        }
        let para = p.runs.iter().any(|r| r.config.ftl.mapping == m && r.config.ftl.gc.unit == GcUnit::Para);
        assert!(para, "no run of {} with ParaGC", m.name());
    }
}

#[test]
fn the_runs_cover_every_cache_policy_and_gc_unit_and_their_variants() {
    let p = default_plan();
    let runs: Vec<&Config> = p.runs.iter().map(|r| &r.config).collect();
    let any = |f: &dyn Fn(&Config) -> bool, what: &str| assert!(runs.iter().any(|c| f(c)), "no run with {what}");
    any(&|c| !c.cache.enabled, "the cache off");
    for policy in [CachePolicy::Lru, CachePolicy::Spd, CachePolicy::BaselineD, CachePolicy::BaselineP] {
        any(&|c| c.cache.enabled && c.cache.policy == policy, policy.name());
    }
    any(&|c| c.cache.enabled && c.cache.destage == Destage::Eager, "eager destaging");
    any(&|c| c.cache.enabled && c.cache.slot_release == SlotRelease::Evicted, "slots freed at eviction");
    for unit in [GcUnit::Plane, GcUnit::Die, GcUnit::Twin, GcUnit::Para] {
        any(&|c| c.ftl.gc.unit == unit, &format!("ftl.gc.unit {unit:?}"));
    }
    any(&|c| c.ftl.gc.copyback, "copyback");
    any(&|c| c.ftl.gc.die_leftover == DieLeftover::Buffer, "Die-GC's leftover into the buffer");
    any(&|c| c.ftl.wear_leveling.static_threshold > 0, "static wear levelling");
}

#[test]
fn the_static_orders_and_hybrids_keep_their_levels() {
    let orders = every_order();
    assert_eq!(orders.len(), 64);
    assert_eq!(orders[0].to_string().len(), 4, "static orders first");
    let cwd = allocation("CWD");
    assert!(matches!(cwd, AllocationScheme::Hybrid { fixed: 3, order } if order[3] == Level::Plane));
}

#[test]
fn the_writes_are_split_evenly_and_each_combination_gets_one() {
    let s = shares(10, 4).unwrap();
    assert_eq!(s, vec![3, 3, 2, 2]);
    assert_eq!(shares(10_000_000, 7).unwrap().iter().sum::<u64>(), 10_000_000);
    assert!(shares(3, 4).is_err());
    assert!(shares(3, 0).is_err());
}

#[test]
fn a_filter_matches_whole_parts_of_a_name() {
    let c = |mapping, allocation: &str, gc| Combination {
        mapping,
        allocation: AllocationScheme::parse(allocation).unwrap(),
        cache: CacheMode::Lru,
        gc,
    };
    let dftl = c(MappingKind::Dftl, "CW", GcMode::Die);
    let cdftl = c(MappingKind::Cdftl, "CWD", GcMode::DieBuffer);
    assert_eq!(dftl.name(), "dftl/CW/lru/die");
    assert!(dftl.matches("dftl") && !cdftl.matches("dftl"));
    assert!(dftl.matches("die") && !cdftl.matches("die"));
    assert!(dftl.matches("CW/lru") && !cdftl.matches("CW/lru"));
    assert!(dftl.matches("dftl/CW/lru/die") && !dftl.matches("ftl"));
}

#[test]
fn the_workload_asks_for_the_writes_on_average_and_the_seed_follows_the_name() {
    let w = workload(900, 7);
    let f = &w.flows[0];
    assert_eq!(f.requests, 1000);
    assert!((f.requests as f64 * (1.0 - f.read_ratio) - 900.0).abs() < 1e-9);
    assert_eq!(w.precondition.as_ref().map(|p| p.occupancy), Some(0.9));
    assert_eq!(seed_for(7, "a"), seed_for(7, "a"));
    assert_ne!(seed_for(7, "a"), seed_for(7, "b"));
}

#[test]
fn a_drive_without_strict_hazards_is_bad_input() {
    let e = drive(None, &["hil.hazards=war".into()]).unwrap_err().to_string();
    assert!(e.contains("hil.hazards") && e.contains("strict"), "{e}");
}

#[test]
fn every_runs_each_valid_point_and_all_pairs_a_fraction_of_them() {
    let (drive, _) = drive(None, &[]).unwrap();
    let valid = cross().into_iter().filter(|&q| at(q).apply(&drive).validate("t").is_ok()).count();
    let every = plan(&drive, Selection::Every, None);
    assert_eq!(
        every.runs.len(),
        valid + 64 - CROSS_ALLOCATIONS.iter().filter(|a| a.chars().all(|c| "CWDP".contains(c))).count()
    );
    let pairs = plan(&drive, Selection::AllPairs, None);
    assert!(pairs.runs.len() * 4 < every.runs.len(), "{} of {}", pairs.runs.len(), every.runs.len());
}

#[test]
fn only_keeps_the_combinations_it_names() {
    let (drive, _) = drive(None, &[]).unwrap();
    let p = plan(&drive, Selection::AllPairs, Some("dftl"));
    assert!(!p.runs.is_empty());
    assert!(p.runs.iter().all(|r| r.config.ftl.mapping == MappingKind::Dftl));
    assert!(p.skipped.iter().all(|s| s.example.mapping == MappingKind::Dftl));
}

/// Two short runs in this process: each reported once, in plan order, passing, with about
/// its writes and the final sweep over every logical page among the reads checked.
#[test]
fn run_all_reports_each_combination_once_with_its_counts() {
    let (drive, _) = drive(None, &[]).unwrap();
    let mut runs = plan(&drive, Selection::AllPairs, Some("full/CWDP/off/plane")).runs;
    runs.extend(plan(&drive, Selection::AllPairs, Some("fmmu")).runs.into_iter().take(1));
    let calls = Mutex::new(Vec::new());
    let results =
        run_all(&runs, &[900, 900], 2, |r, w| run_one(r, w, 1), |k, r| calls.lock().unwrap().push((k, r.name.clone())));
    let mut calls = calls.into_inner().unwrap();
    calls.sort();
    assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 2]);
    let logical = ssdlab::ftl::logical_pages(&ssdlab::nand::Geometry::from_config(&drive.nand), 0.07) as u64;
    for (r, p) in results.iter().zip(&runs) {
        assert_eq!(r.name, p.combination.name());
        assert!(r.passed(), "{}", r.line());
        assert!((800..=1000).contains(&r.writes), "{}", r.line());
        assert!(r.reads_checked >= logical, "{} checked, {logical} logical pages", r.reads_checked);
    }
}
