//! The `[ftl.gc]` section: when GC starts and where user writes wait, how it picks a victim,
//! what one GC collects, and copyback; with the checks that need only these keys. Every key,
//! its unit and default: `docs/config.md`, section `[ftl.gc]`.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ftl::gc::die_gc::DieLeftover;
use crate::ftl::gc::paragc::ParaAlign;
use crate::ftl::gc::{GcUnit, UrgentWhen, VictimPolicy, VictimRead};
use crate::validate::{reject, require_nonzero};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GcConfig {
    /// greedy | cost_benefit | random | fifo | d_choices
    pub policy: VictimPolicy,
    /// GC starts on a plane when its free blocks fall below this fraction of its blocks.
    pub threshold: f64,
    /// User writes to a plane wait when its free blocks fall to this fraction (foreground GC);
    /// at least one block is always kept for GC.
    pub hard_threshold: f64,
    /// Background GC: while a chip is idle, clean planes whose free fraction is below this.
    /// 0 turns background GC off.
    pub background_threshold: f64,
    /// Move valid pages with copyback (no data over the bus) instead of read + program.
    pub copyback: bool,
    /// Number of random candidates for `d_choices`.
    pub d: u32,
    /// plane | die: what one GC collects (die: SPD's Die-GC over an aligned block set).
    pub unit: GcUnit,
    /// pad | buffer: where Die-GC's last partial group of moves goes.
    pub die_leftover: DieLeftover,
    /// paced | near_reserve | collecting: when a collecting plane's GC goes before user
    /// writes on its chip.
    pub urgent_when: UrgentWhen,
    /// valid_only | all_pages: which pages of a victim GC reads (all_pages: each with a map
    /// lookup, as FMMU's GC manager does).
    pub read_victim: VictimRead,
    /// catch_up | pad | none: how ParaGC (`unit = "para"`) aligns the GC destination write
    /// points of the planes that start together, whose k-th moves then program together
    /// (slides s.21); `none`: moves pair only where offsets happen to match (the earlier rule).
    pub para_align: ParaAlign,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            policy: VictimPolicy::Greedy,
            threshold: 0.05,
            hard_threshold: 0.005,
            background_threshold: 0.0,
            unit: GcUnit::Plane,
            die_leftover: DieLeftover::Pad,
            urgent_when: UrgentWhen::Paced,
            read_victim: VictimRead::ValidOnly,
            para_align: ParaAlign::CatchUp,
            copyback: false,
            d: 4,
        }
    }
}

impl GcConfig {
    /// Thresholds are fractions of a plane's blocks, ordered hard ≤ start < background (or
    /// background off), and `d_choices` has a candidate.
    pub fn validate(&self, file: &str) -> Result<()> {
        for (key, v) in [
            ("ftl.gc.threshold", self.threshold),
            ("ftl.gc.hard_threshold", self.hard_threshold),
            ("ftl.gc.background_threshold", self.background_threshold),
        ] {
            if !(0.0..0.5).contains(&v) {
                return reject(file, key, v, "must be a fraction of a plane's blocks in [0, 0.5)");
            }
        }
        if self.hard_threshold > self.threshold {
            return reject(
                file,
                "ftl.gc.hard_threshold",
                self.hard_threshold,
                &format!("must not exceed ftl.gc.threshold ({})", self.threshold),
            );
        }
        if self.background_threshold > 0.0 && self.background_threshold <= self.threshold {
            return reject(
                file,
                "ftl.gc.background_threshold",
                self.background_threshold,
                &format!(
                    "background GC only acts above ftl.gc.threshold ({}): set it higher, or 0 to turn it off",
                    self.threshold
                ),
            );
        }
        if self.read_victim == VictimRead::AllPages {
            if self.copyback {
                let why = "a copyback moves a page without reading it out, so it cannot read every page: drop ftl.gc.copyback";
                return reject(file, "ftl.gc.read_victim", "all_pages", why);
            }
            if self.unit.aligned_set() {
                let why = "is built for ftl.gc.unit = \"plane\" or \"para\"; Die-GC and TwinBlk read valid pages only";
                return reject(file, "ftl.gc.read_victim", "all_pages", why);
            }
        }
        if self.para_align != ParaAlign::CatchUp && self.unit != GcUnit::Para {
            return reject(file, "ftl.gc.para_align", self.para_align, "applies to ftl.gc.unit = \"para\" only");
        }
        if self.para_aligned() && self.copyback {
            let why = "pairs the programs of moves, which copybacks have not: set ftl.gc.copyback = false or ftl.gc.para_align = \"none\"";
            return reject(file, "ftl.gc.para_align", self.para_align, why);
        }
        require_nonzero(file, &[("ftl.gc.d", self.d)])
    }

    /// Whether ParaGC aligns its GC write points and pairs its moves.
    pub fn para_aligned(&self) -> bool {
        self.unit == GcUnit::Para && self.para_align != ParaAlign::None
    }
}
