//! Garbage collection control: which planes are collecting, their victims, the moves still
//! to finish, and the choice of the next victim.
//!
//! A plane starts GC when its free blocks fall below `ftl.gc.threshold` (or, with background
//! GC, below `ftl.gc.background_threshold` while its chip is idle). GC picks a victim by the
//! configured policy (or, with static wear levelling, the plane's least-erased full block once
//! the erase-count spread passes `ftl.wear_leveling.static_threshold`), lists its valid pages
//! for the loop to move through the TSU like any other flash work, counts the moves as they
//! finish and hands the victim back for its erase. Near the hard threshold, where user
//! writes wait, GC goes first on the chip ([`Gc::critical`]).

pub mod config;
pub mod die_gc;
pub mod paragc;
pub mod twinblk;

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

use crate::ftl::gc::config::GcConfig;
use serde::{Deserialize, Serialize};

use crate::ftl::{BlockState, Blocks, LivePage};
use crate::nand::{FlashOp, Geometry, NONE};
use die_gc::{aligned_victim, max_valid, DieGcMoves};
use paragc::ParaMoves;

/// GC victim choice (`ftl.gc.policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Largest age × (1 − u) / 2u (Kawaguchi et al.), age in block openings since written.
    CostBenefit,
    /// A uniformly random full block.
    Random,
    /// The oldest full block (least recently written: LRW).
    Fifo,
    /// Fewest valid pages among d random full blocks.
    DChoices,
}

/// When a collecting plane's GC is urgent, going before user writes on its chip
/// (`ftl.gc.urgent_when`; docs/techniques.md §13). Urgent GC never goes before reads unless
/// the TSU is told so (`tsu.urgent_gc = "first"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UrgentWhen {
    /// GC is paced against host writes by the free-space shortfall [S/I]. The plane's user
    /// room r is the rest of its open user block and the pages of its free blocks above the
    /// user reserve R; at the GC trigger G it is r₀ = (G − R) blocks. Each user page the
    /// plane takes while it collects owes its GC `u/(1−u) · s / (r / r₀)` moves, with u the
    /// victim's valid share (u/(1−u) moves per user page keep pace exactly) and s = (r₀ − r)
    /// in blocks the shortfall; each move done pays one back. GC is urgent while it owes
    /// moves, and whenever a user write finds no page. GC keeps pace once the shortfall is
    /// about one block, so free blocks settle just under the trigger whatever the load,
    /// and the rate grows without bound as the room runs out.
    Paced,
    /// Only when a user write finds no page: the open user block is full and no free block
    /// is above the user reserve [I]. Under a saturating load GC then runs in bursts at the
    /// reserve.
    NoRoom,
    /// A free block or fewer above the user reserve (ssdlab before issue 31) [I]: on planes
    /// of few blocks, the whole life of every GC.
    NearReserve,
    /// Whenever the plane collects: MQSim with preemptible GC off, its default [C MQSim].
    Collecting,
}

/// Which pages of a victim GC reads (`ftl.gc.read_victim`; docs/techniques.md §9.1 item 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VictimRead {
    /// Only the pages the block manager knows are valid [I]: a simulator's shortcut, and
    /// ssdlab's rule before issue 32.
    #[default]
    ValidOnly,
    /// Every programmed page: each read gives the page's logical address from its spare
    /// area, the map is looked up for it, and the page moves only if the map still points
    /// at it — FMMU's GC manager (Woo & Min 2017, §3) [P]. A victim with no valid page is
    /// erased without a read: the block manager, which keeps valid counts, erases such
    /// blocks itself [P].
    AllPages,
}

/// Block counts derived from the GC thresholds of a config.
/// What one GC collects (`ftl.gc.unit`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcUnit {
    /// One block of the plane that needs it.
    #[default]
    Plane,
    /// SPD's Die-GC: an aligned block set of the die, its moves staged into aligned
    /// N-plane programs (`crate::ftl::gc::die_gc`).
    Die,
    /// TwinBlk: the die's twin blocks (an aligned set), moved within their planes and
    /// erased together (`crate::ftl::gc::twinblk`).
    Twin,
    /// ParaGC: every plane of the die at once, each its own victim (`crate::ftl::gc::paragc`).
    Para,
}

impl GcUnit {
    /// Whether one GC collects an aligned block set of a die, erased together.
    pub fn aligned_set(self) -> bool {
        matches!(self, GcUnit::Die | GcUnit::Twin)
    }
}

pub struct Limits {
    /// GC starts on a plane below this many free blocks.
    pub gc_threshold_blocks: u32,
    /// User writes wait at or below this many free blocks.
    pub user_reserve_blocks: u32,
    pub background_threshold_blocks: u32,
    /// Open write frontiers per plane: user and GC, plus translation pages with a
    /// demand-based map (a plane may hold a translation block open as well).
    pub frontiers: u32,
}

impl Limits {
    /// `frontiers`: the write points a plane keeps open (`FtlConfig::frontiers`).
    pub fn new(gc: &GcConfig, blocks_per_plane: u32, frontiers: u32) -> Limits {
        let bpp = blocks_per_plane as f64;
        let user_reserve = ((bpp * gc.hard_threshold).ceil() as u32).max(1);
        let gc_threshold = ((bpp * gc.threshold).ceil() as u32).max(user_reserve + 1);
        Limits {
            gc_threshold_blocks: gc_threshold,
            user_reserve_blocks: user_reserve,
            background_threshold_blocks: (bpp * gc.background_threshold).ceil() as u32,
            frontiers,
        }
    }

    /// Blocks per plane that hold data in steady state: all but the ones GC keeps free and
    /// the open frontiers.
    pub fn data_blocks_per_plane(&self, geo: &Geometry) -> u32 {
        geo.blocks_per_plane.saturating_sub(self.gc_threshold_blocks + self.frontiers)
    }
}

pub struct Gc {
    geo: Geometry,
    policy: VictimPolicy,
    /// Candidates drawn by `d_choices`.
    d: u32,
    static_wl_threshold: u32,
    /// `ftl.gc.copyback`: move pages with copyback instead of read + program.
    copyback: bool,
    pub(super) limits: Limits,
    /// Per plane: the block being cleaned, or NONE.
    victim: Vec<u32>,
    /// Planes with a victim now.
    collecting: u32,
    /// Per plane: page moves of the current victim not yet finished.
    pending: Vec<u32>,
    /// Per plane ([`UrgentWhen::Paced`]): the moves its GC owes the host's writes, and the
    /// moves per user page that keep pace with them for its victim.
    debt: Vec<f64>,
    keep_pace: Vec<f64>,
    /// Per plane: GC was needed but no block had an invalid page; an invalidation there
    /// wakes it ([`Gc::invalidated`]).
    starved: Vec<bool>,
    starved_planes: u32,
    /// Starved planes that gained an invalid page, for the loop to try again.
    wakeups: Vec<u32>,
    rng: Pcg64Mcg,
    unit: GcUnit,
    /// Per plane, under an aligned unit: it collects a victim of its own, its die having no
    /// aligned set while its user writes found no page ([`Gc::mark_alone`]).
    alone: Vec<bool>,
    urgent_when: UrgentWhen,
    read_victim: VictimRead,
    /// Die-GC's moves between read and program.
    die_moves: DieGcMoves,
    /// ParaGC with aligned write points (`ftl.gc.para_align`): its moves between read and
    /// program, per plane and session.
    para_moves: Option<ParaMoves>,
    para_align: paragc::ParaAlign,
    /// The most valid pages an aligned set may hold to be collected ([`max_valid`]).
    set_max_valid: u32,
    scratch: Vec<LivePage>,
}

impl Gc {
    /// Bytes of GC's books on `geo`: per plane its victim, pending moves, debt, pace and two
    /// flags; per die Die-GC's staged moves.
    pub fn estimate_bytes(geo: &Geometry) -> u64 {
        let per_plane = 4 + 4 + 8 + 8 + 1 + 1;
        let per_die = std::mem::size_of::<Vec<u32>>() as u64 + 4;
        geo.planes() as u64 * per_plane + (geo.chips() * geo.dies_per_chip) as u64 * per_die
    }

    pub fn new(gc: &GcConfig, limits: Limits, static_wl_threshold: u32, geo: &Geometry, seed: u64) -> Gc {
        use rand::SeedableRng;
        let planes = geo.planes() as usize;
        Gc {
            geo: geo.clone(),
            policy: gc.policy,
            d: gc.d,
            static_wl_threshold,
            copyback: gc.copyback,
            limits,
            victim: vec![NONE; planes],
            collecting: 0,
            pending: vec![0; planes],
            debt: vec![0.0; planes],
            keep_pace: vec![0.0; planes],
            starved: vec![false; planes],
            starved_planes: 0,
            wakeups: Vec::new(),
            rng: Pcg64Mcg::seed_from_u64(seed ^ 0x6674_6c5f_7263),
            unit: gc.unit,
            alone: vec![false; planes],
            urgent_when: gc.urgent_when,
            read_victim: gc.read_victim,
            die_moves: DieGcMoves::new(geo.chips() * geo.dies_per_chip, geo.planes_per_die),
            para_moves: gc.para_aligned().then(|| ParaMoves::new(geo.planes(), geo.planes_per_die)),
            para_align: gc.para_align,
            set_max_valid: max_valid(geo, gc.unit, gc.die_leftover),
            scratch: Vec::new(),
        }
    }

    /// Whether `plane` should start GC now (below the threshold and not already collecting).
    #[inline]
    pub fn needed(&self, plane: u32, blocks: &Blocks) -> bool {
        self.victim[plane as usize] == NONE && blocks.free_blocks(plane) < self.limits.gc_threshold_blocks
    }

    /// Whether background GC is on.
    #[inline]
    pub fn background_on(&self) -> bool {
        self.limits.background_threshold_blocks > 0
    }

    /// Whether background GC may clean `plane` while its chip is idle.
    pub fn wanted_in_background(&self, plane: u32, blocks: &Blocks) -> bool {
        self.victim[plane as usize] == NONE && blocks.free_blocks(plane) < self.limits.background_threshold_blocks
    }

    /// Whether GC is pressing on a chip: one of its collecting planes is urgent by
    /// `ftl.gc.urgent_when` ([`UrgentWhen`]). Otherwise GC runs in the chip's idle time.
    #[inline]
    pub fn critical(&self, chip: u32, blocks: &Blocks) -> bool {
        if self.collecting == 0 {
            return false;
        }
        let ppc = self.geo.planes_per_chip();
        let reserve = self.limits.user_reserve_blocks;
        (chip * ppc..(chip + 1) * ppc).any(|p| {
            self.victim[p as usize] != NONE
                && match self.urgent_when {
                    UrgentWhen::Paced => self.debt[p as usize] > 0.0 || blocks.user_room(p, reserve) == 0,
                    UrgentWhen::NoRoom => blocks.user_room(p, reserve) == 0,
                    UrgentWhen::NearReserve => blocks.free_blocks(p) <= reserve + 1,
                    UrgentWhen::Collecting => true,
                }
        })
    }

    /// A user page was allocated on `plane` ([`UrgentWhen::Paced`]): while the plane
    /// collects, its GC owes the moves that page's share of the shortfall asks for.
    #[inline]
    pub fn user_page(&mut self, plane: u32, blocks: &Blocks) {
        let p = plane as usize;
        if self.urgent_when != UrgentWhen::Paced || self.victim[p] == NONE {
            return;
        }
        let l = &self.limits;
        let ppb = self.geo.pages_per_block as f64;
        let full = (l.gc_threshold_blocks - l.user_reserve_blocks) as f64 * ppb;
        let room = (blocks.user_room(plane, l.user_reserve_blocks) as f64).min(full);
        // The shortfall in blocks, over the share of the room left.
        self.debt[p] += self.keep_pace[p] * ((full - room) / ppb) / (room / full).max(1e-9);
    }

    /// A victim's collection starts on `plane` with `reads` pages to read, `valid` of them
    /// valid: no debt yet. Each read done pays one back, and the victim frees (ppb − valid)
    /// pages, so reads / (ppb − valid) reads per user page keep pace with the host: u/(1−u)
    /// when only the valid pages are read (u the valid share), 1/(1−u) when all are.
    fn start_pacing(&mut self, plane: u32, reads: u32, valid: u32) {
        let p = plane as usize;
        let ppb = self.geo.pages_per_block as f64;
        let u = valid as f64 / ppb;
        self.debt[p] = 0.0;
        self.keep_pace[p] = if reads == valid {
            // The same ratio, in the form valid-only runs have always computed it.
            u / (1.0 - u).max(1e-9)
        } else {
            reads as f64 / (ppb - valid as f64).max(1e-9)
        };
    }

    /// How a move is made: a read then a program, or a copyback.
    pub fn move_op(&self) -> FlashOp {
        if self.copyback {
            FlashOp::Copyback
        } else {
            FlashOp::Read
        }
    }

    /// Choose a victim in `plane`, mark it, and list its valid pages in `pages` (the moves
    /// to make). None if no block would free space.
    pub fn start(&mut self, plane: u32, blocks: &mut Blocks, pages: &mut Vec<LivePage>) -> Option<u32> {
        let found = self.static_wl_victim(plane, blocks).or_else(|| self.select_victim(plane, blocks));
        let Some(victim) = found else {
            self.starve(plane);
            return None;
        };
        blocks.state[victim as usize] = BlockState::Victim;
        self.victim[plane as usize] = victim;
        self.collecting += 1;
        // The block manager knows each block's valid count, so a victim with none is erased
        // without a read (FMMU's BM erases blocks left without valid pages, §3).
        match self.read_victim {
            VictimRead::AllPages if blocks.valid[victim as usize] > 0 => blocks.written_pages(victim, pages),
            _ => blocks.valid_pages(victim, pages),
        }
        self.pending[plane as usize] = pages.len() as u32;
        self.start_pacing(plane, pages.len() as u32, blocks.valid[victim as usize] as u32);
        Some(victim)
    }

    /// Under an aligned unit (Die-GC, TwinBlk), `plane`'s die has no aligned set to collect,
    /// the plane has no free block above the user reserve, and nothing is left to happen
    /// (`Ftl::unstick`): its writes wait and nothing can invalidate its pages (a static
    /// allocation sends its overwrites to it), so it would wait forever. It collects a
    /// victim of its own, as plane GC does, moves within the plane and a one-plane erase
    /// [I]; the die's sets resume once it is done. Marks the plane whose victim
    /// [`Gc::start`] just chose so.
    pub fn mark_alone(&mut self, plane: u32) {
        debug_assert!(self.victim[plane as usize] != NONE);
        self.alone[plane as usize] = true;
    }

    /// Whether `plane` collects a victim of its own under an aligned unit.
    #[inline]
    pub fn collects_alone(&self, plane: u32) -> bool {
        self.alone[plane as usize]
    }

    /// A page of `plane` became invalid. A plane whose GC found no victim is woken: the
    /// loop takes it from [`Gc::take_wakeup`] and tries again. Without this, a plane full of
    /// valid pages whose writes wait for a free block would stay stuck once other planes
    /// invalidate its pages (dynamic allocation writes an overwrite to another plane).
    #[inline]
    pub fn unit(&self) -> GcUnit {
        self.unit
    }

    /// Die-GC: collect the aligned block set of `plane`'s die with the fewest valid pages;
    /// its valid pages (on every plane of the die) go into `pages`. Returns the die, or None
    /// when the die is collecting already or has no set to collect (then `plane` waits for
    /// an invalidation, as [`Gc::start`]).
    pub fn start_die(&mut self, plane: u32, blocks: &mut Blocks, pages: &mut Vec<LivePage>) -> Option<u32> {
        let n = self.geo.planes_per_die;
        let die = plane / n;
        let planes = die * n..(die + 1) * n;
        if planes.clone().any(|q| self.victim[q as usize] != NONE) {
            return None;
        }
        let Some(index) = aligned_victim(&self.geo, die, blocks, self.set_max_valid) else {
            self.starve(plane);
            return None;
        };
        pages.clear();
        for q in planes {
            let victim = q * self.geo.blocks_per_plane + index;
            blocks.state[victim as usize] = BlockState::Victim;
            self.victim[q as usize] = victim;
            self.collecting += 1;
            blocks.valid_pages(victim, &mut self.scratch);
            self.pending[q as usize] = self.scratch.len() as u32;
            self.start_pacing(q, self.scratch.len() as u32, self.scratch.len() as u32);
            pages.extend_from_slice(&self.scratch);
        }
        if self.unit == GcUnit::Die {
            self.die_moves.started(die, pages.len() as u32);
        }
        Some(die)
    }

    fn starve(&mut self, plane: u32) {
        if !self.starved[plane as usize] {
            self.starved[plane as usize] = true;
            self.starved_planes += 1;
        }
    }

    /// Die-GC: the read of a move off `plane` found its page live (`handle` names the move)
    /// or gone (None). A group of moves ready to program goes into `group`.
    pub fn die_move_read(&mut self, plane: u32, handle: Option<u32>, group: &mut Vec<u32>) {
        let die = plane / self.geo.planes_per_die;
        match handle {
            Some(h) => self.die_moves.read_live(die, h, group),
            None => self.die_moves.read_dead(die, group),
        }
    }

    /// ParaGC with aligned write points: a new session's name (the planes of a die that
    /// start GC together).
    pub fn para_session(&mut self) -> Option<u32> {
        self.para_moves.as_mut().map(|m| m.new_session())
    }

    /// ParaGC with aligned write points: `plane`, whose victim [`Gc::start`] chose with
    /// `moves` valid pages, moves them in `session`, its first `solo` live moves alone.
    pub fn para_started(&mut self, plane: u32, session: u32, moves: u32, solo: u32) {
        self.para_moves.as_mut().expect("ParaGC aligns its write points").started(plane, session, moves, solo);
    }

    /// How ParaGC aligns its write points (`ftl.gc.para_align`).
    pub fn para_align(&self) -> paragc::ParaAlign {
        self.para_align
    }

    /// Whether moves of this GC are paired by ParaGC's sessions.
    pub fn para_aligned(&self) -> bool {
        self.para_moves.is_some()
    }

    /// ParaGC with aligned write points: the read of a move off `plane` found its page live
    /// (`handle` names the move) or gone (None); each group of moves ready to program
    /// together goes to `emit` ([`ParaMoves::read_done`]).
    pub fn para_move_read(&mut self, plane: u32, handle: Option<u32>, emit: impl FnMut(&[u32])) {
        self.para_moves.as_mut().expect("ParaGC aligns its write points").read_done(plane, handle, emit);
    }

    /// Die-GC: a move off `plane` is done; after the die's last, the die (its victims are
    /// then erased together).
    pub fn die_move_done(&mut self, plane: u32) -> Option<u32> {
        let n = self.geo.planes_per_die;
        self.pending[plane as usize] -= 1;
        self.debt[plane as usize] -= 1.0;
        let die = plane / n;
        (die * n..(die + 1) * n).all(|q| self.pending[q as usize] == 0).then_some(die)
    }

    /// The block `plane` is collecting (NONE if none).
    pub fn victim(&self, plane: u32) -> u32 {
        self.victim[plane as usize]
    }

    #[inline]
    pub fn invalidated(&mut self, plane: u32) {
        if self.starved_planes > 0 && self.starved[plane as usize] {
            self.starved[plane as usize] = false;
            self.starved_planes -= 1;
            self.wakeups.push(plane);
        }
    }

    /// A woken plane (see [`Gc::invalidated`]).
    #[inline]
    pub fn take_wakeup(&mut self) -> Option<u32> {
        self.wakeups.pop()
    }

    /// A move of `plane`'s victim finished (or was found unnecessary). When it was the last,
    /// the victim is returned: erase it.
    pub fn move_done(&mut self, plane: u32) -> Option<u32> {
        let p = plane as usize;
        self.pending[p] -= 1;
        self.debt[p] -= 1.0;
        (self.pending[p] == 0).then_some(self.victim[p])
    }

    /// The victim of `plane` was erased: free the block and end the plane's GC.
    pub fn finish(&mut self, plane: u32, blocks: &mut Blocks) -> u32 {
        let victim = self.victim[plane as usize];
        assert!(victim != NONE, "finish_gc on plane {plane} without a victim");
        blocks.erase(victim);
        self.victim[plane as usize] = NONE;
        self.alone[plane as usize] = false;
        self.collecting -= 1;
        victim
    }

    /// One plane's GC state, for the message of a run that stopped with work left.
    pub fn describe_plane(&self, plane: u32, blocks: &Blocks) -> String {
        let p = plane as usize;
        format!(
            "plane {plane} free {} victim {} pending {}; ",
            blocks.free_blocks(plane),
            self.victim[p] as i64,
            self.pending[p]
        )
    }

    /// Planes collecting now must have a victim each.
    pub fn check(&self) {
        let victims = self.victim.iter().filter(|&&v| v != NONE).count() as u32;
        assert_eq!(self.collecting, victims, "planes counted as collecting differ from planes with a victim");
    }

    fn closed_blocks(&self, plane: u32) -> std::ops::Range<u32> {
        let first = plane * self.geo.blocks_per_plane;
        first..first + self.geo.blocks_per_plane
    }

    fn select_victim(&mut self, plane: u32, b: &Blocks) -> Option<u32> {
        let ppb = self.geo.pages_per_block as u16;
        let reclaimable = |x: u32| b.state[x as usize] == BlockState::Closed && b.valid[x as usize] < ppb;
        let range = self.closed_blocks(plane);
        match self.policy {
            VictimPolicy::Greedy => range.filter(|&x| reclaimable(x)).min_by_key(|&x| (b.valid[x as usize], x)),
            VictimPolicy::Fifo => range.filter(|&x| reclaimable(x)).min_by_key(|&x| b.opened_seq[x as usize]),
            VictimPolicy::CostBenefit => {
                let now = range.clone().map(|x| b.opened_seq[x as usize]).max().unwrap_or(0);
                let mut best: Option<(f64, u32)> = None;
                for x in range.filter(|&x| reclaimable(x)) {
                    let u = b.valid[x as usize] as f64 / ppb as f64;
                    let age = (now - b.opened_seq[x as usize] + 1) as f64;
                    let score = if u == 0.0 { f64::INFINITY } else { age * (1.0 - u) / (2.0 * u) };
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, x));
                    }
                }
                best.map(|(_, x)| x)
            }
            VictimPolicy::Random | VictimPolicy::DChoices => {
                let candidates: u32 = range.clone().filter(|&x| reclaimable(x)).count() as u32;
                if candidates == 0 {
                    return None;
                }
                let draws = if self.policy == VictimPolicy::Random { 1 } else { self.d };
                let mut best: Option<u32> = None;
                for _ in 0..draws {
                    let k = self.rng.random_range(0..candidates);
                    let x = range.clone().filter(|&x| reclaimable(x)).nth(k as usize).expect("k < candidates");
                    if best.is_none_or(|y| (b.valid[x as usize], x) < (b.valid[y as usize], y)) {
                        best = Some(x);
                    }
                }
                best
            }
        }
    }

    /// Static wear levelling: when the plane's erase-count spread exceeds the threshold,
    /// clean its least-erased full block so its (cold) data moves onto a worn block.
    fn static_wl_victim(&self, plane: u32, b: &Blocks) -> Option<u32> {
        if self.static_wl_threshold == 0 {
            return None;
        }
        let range = self.closed_blocks(plane);
        let max = range.clone().map(|x| b.erase_count[x as usize]).max()?;
        let coldest = range
            .filter(|&x| b.state[x as usize] == BlockState::Closed)
            .min_by_key(|&x| (b.erase_count[x as usize], x))?;
        (max - b.erase_count[coldest as usize] > self.static_wl_threshold).then_some(coldest)
    }
}
