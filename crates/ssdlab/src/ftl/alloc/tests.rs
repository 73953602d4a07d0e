//! Allocation schemes worked by hand on 2 channels × 3 chips × 2 dies × 2 planes.

use super::*;
use crate::ftl::Ftl;

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
    pub ftl: crate::ftl::config::FtlConfig,
}

/// 2 channels x 3 chips x 2 dies x 2 planes.
fn config() -> Sections {
    let mut c = Sections::default();
    c.nand.channels = 2;
    c.nand.chips_per_channel = 3;
    c.nand.dies_per_chip = 2;
    c.nand.planes_per_die = 2;
    c
}

fn geo() -> Geometry {
    Geometry::from_config(&config().nand)
}

#[test]
fn static_orders_follow_their_letters() {
    let g = geo();
    let cwdp = match AllocationScheme::parse("CWDP").unwrap() {
        AllocationScheme::Static(o) => o,
        _ => unreachable!(),
    };
    // CWDP: lpn 0,1 alternate channels; lpn 2 moves to the next chip of channel 0.
    assert_eq!(static_plane(&g, &cwdp, 0).0, g.plane_index(0, 0, 0, 0));
    assert_eq!(static_plane(&g, &cwdp, 1).0, g.plane_index(1, 0, 0, 0));
    assert_eq!(static_plane(&g, &cwdp, 2).0, g.plane_index(0, 1, 0, 0));
    assert_eq!(static_plane(&g, &cwdp, 6).0, g.plane_index(0, 0, 1, 0));
    assert_eq!(static_plane(&g, &cwdp, 12).0, g.plane_index(0, 0, 0, 1));
    assert_eq!(static_plane(&g, &cwdp, 24), (g.plane_index(0, 0, 0, 0), 1));
    let pdwc = match AllocationScheme::parse("pdwc").unwrap() {
        AllocationScheme::Static(o) => o,
        _ => unreachable!(),
    };
    assert_eq!(static_plane(&g, &pdwc, 1).0, g.plane_index(0, 0, 0, 1));
    assert_eq!(static_plane(&g, &pdwc, 2).0, g.plane_index(0, 0, 1, 0));
    assert_eq!(static_plane(&g, &pdwc, 4).0, g.plane_index(0, 1, 0, 0));
    assert_eq!(static_plane(&g, &pdwc, 12).0, g.plane_index(1, 0, 0, 0));
    // All 24 permutations parse and cover every plane exactly once per stripe.
    let letters = ['C', 'W', 'D', 'P'];
    let mut count = 0;
    for a in letters {
        for b in letters {
            for c in letters {
                for d in letters {
                    let s: String = [a, b, c, d].iter().collect();
                    if let Ok(AllocationScheme::Static(o)) = AllocationScheme::parse(&s) {
                        count += 1;
                        let mut seen = vec![false; g.planes() as usize];
                        for l in 0..g.planes() {
                            seen[static_plane(&g, &o, l).0 as usize] = true;
                        }
                        assert!(seen.iter().all(|&x| x), "{s} misses a plane");
                    }
                }
            }
        }
    }
    assert_eq!(count, 24);
    assert!(AllocationScheme::parse("CWDD").is_err());
}

#[test]
fn hybrid_orders_fix_the_given_letters_and_balance_the_rest() {
    use Level::*;
    assert_eq!(
        AllocationScheme::parse("cw"),
        Ok(AllocationScheme::Hybrid { order: [Channel, Way, Die, Plane], fixed: 2 })
    );
    assert_eq!(
        AllocationScheme::parse("PD"),
        Ok(AllocationScheme::Hybrid { order: [Plane, Die, Channel, Way], fixed: 2 })
    );
    assert_eq!(
        AllocationScheme::parse("W"),
        Ok(AllocationScheme::Hybrid { order: [Way, Channel, Die, Plane], fixed: 1 })
    );
    assert!(AllocationScheme::parse("").is_err());
    assert!(AllocationScheme::parse("CWC").is_err());
    assert!(AllocationScheme::parse("CWDPC").is_err());

    // 2 channels x 3 chips x 2 dies x 2 planes; "CW": lpn 7 -> channel 1, chip 0 (as CWDP),
    // so the candidates are planes 12..16 of chip 3 (die-major: 12 = d0p0, 13 = d0p1,
    // 14 = d1p0, 15 = d1p1), scanned dies first from the rotation point.
    let mut c = config();
    c.nand.blocks_per_plane = 8;
    c.nand.pages_per_block = 4;
    c.ftl.allocation = AllocationScheme::parse("CW").unwrap();
    let mut ftl = Ftl::new(&c.nand, &c.ftl, 1).unwrap();
    let g = ftl.geo().clone();
    assert_eq!(g.chip_of_plane(static_plane(&g, &[Channel, Way, Die, Plane], 7).0), 3);
    // Nothing queued, every write point at offset 0: rotation d0p0, d1p0, d0p1, d1p1.
    let first: Vec<u32> = (0..4).map(|_| ftl.write_plane(7, &[], 0)).collect();
    assert_eq!(first, vec![12, 14, 13, 15]);
    // Each plane now has one unprogrammed write. Program all four, and only plane 12's
    // write point moves (to offset 1): 13, 14 and 15 lag behind it at offset 0, so they
    // go first, in rotation order (the pointer is back at d0p0, which is skipped).
    for p in [12, 13, 14, 15] {
        ftl.write_programmed(p);
    }
    let (ppn, _) = ftl.allocate(12, Stream::User).unwrap();
    ftl.commit_write(7, ppn, 0);
    assert_eq!(ftl.write_plane(7, &[], 0), 14);
    assert_eq!(ftl.write_plane(7, &[], 0), 13);
    assert_eq!(ftl.write_plane(7, &[], 0), 15);
    // All three lagging planes now carry a write: plane 12 (no load, offset 1) is next.
    assert_eq!(ftl.write_plane(7, &[], 0), 12);
    // Another chip's page (lpn 0 -> chip 0) never lands on chip 3.
    assert_eq!(g.chip_of_plane(ftl.write_plane(0, &[], 0)), 0);
}

#[test]
fn every_scheme_prints_as_its_upper_case_letters() {
    // Every sequence of 1 to 4 distinct letters of CWDP, written in lower case.
    let mut words = vec![String::new()];
    let mut printed = 0;
    while let Some(w) = words.pop() {
        for ch in ['c', 'w', 'd', 'p'].into_iter().filter(|&ch| !w.contains(ch)) {
            let w = format!("{w}{ch}");
            assert_eq!(AllocationScheme::parse(&w).unwrap().to_string(), w.to_ascii_uppercase());
            printed += 1;
            words.push(w);
        }
    }
    assert_eq!(printed, 4 + 12 + 24 + 24);
    assert_eq!(AllocationScheme::parse("DYNAMIC").unwrap().to_string(), "dynamic");
    assert_eq!(AllocationScheme::CWDP.to_string(), "CWDP");
}
