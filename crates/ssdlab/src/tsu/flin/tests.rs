//! FLIN's stages on small cases worked by hand.

use super::*;
use crate::tsu::Owner;
use crate::tsu::Stream;
use crate::tsu::{ChipQueues, Place, QueueEntry, QUEUE_CLASSES};

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
    pub tsu: crate::tsu::config::TsuConfig,
}

fn config() -> Sections {
    let mut cfg = Sections::default();
    cfg.nand.channels = 1;
    cfg.nand.chips_per_channel = 1;
    cfg
}

fn tx(kind: TxKind, op: FlashOp, flow: u32, seq: u64) -> Transaction {
    let owner = match kind {
        TxKind::User => Owner::Request(seq as u32),
        TxKind::Gc => Owner::Gc { plane: 0 },
        TxKind::Mapping => Owner::Map,
        TxKind::Migration => Owner::Migration,
    };
    Transaction {
        owner,
        kind,
        op,
        plane: 0,
        plane_in_chip: 0,
        ppn: NONE,
        lpn: seq as u32,
        sector_mask: 1,
        src_ppn: NONE,
        stream: Stream::User,
        flow,
        enqueued_ps: 0,
        seq,
    }
}

/// User writes since the last erase on chip 0, per flow (the last is the no-flow slot).
fn writes_since_erase(f: &Flin) -> Vec<u32> {
    f.flows.iter().map(|fc| fc.writes_since_erase).collect()
}

/// Chip 0 at time 0 with no GC urgency and no queue excluded.
fn calm<'a>(queues: &'a ChipQueues, txs: &'a [Transaction], excluded: &'a [bool; QUEUE_CLASSES]) -> PickContext<'a> {
    PickContext { chip: 0, now: 0, queues, txs, gc_urgency: GcUrgency::None, excluded }
}

fn order(f: &Flin, op: usize, class: usize) -> Vec<(u32, u32)> {
    f.chips[0].ops[op].class(class).iter().map(|e| (e.tx, e.flow)).collect()
}

/// Stage 1: flow 0 is high-intensity for reads, flow 1 low-intensity. Flow 0 queues three
/// reads; flow 1's read arrives last but goes to the end of the (empty) low segment: first.
/// Stage 1 runs in every setting of `tsu.flin.stages`.
#[test]
fn a_low_intensity_flows_transaction_goes_ahead_of_high_intensity_ones() {
    let mut cfg = config();
    let all: Vec<Transaction> =
        (0..4).map(|k| tx(TxKind::User, FlashOp::Read, if k < 3 { 0 } else { 1 }, k as u64 + 1)).collect();
    for stages in 1..=3 {
        cfg.tsu.flin.stages = stages;
        let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
        f.flow_on_chip(0, 0).low[READ] = false;
        for (k, t) in all.iter().enumerate() {
            f.enqueued(0, k as u32, t, 1_000 * k as Ps);
        }
        assert_eq!(order(&f, READ, 1), vec![(3, 1), (0, 0), (1, 0), (2, 0)], "stages {stages}");
        assert_eq!(f.chips[0].ops[READ].low_len(1), 1);
        // Flow 0's reads each went to the tail (none can pass its own flow); flow 1's went
        // ahead of all three: 4 insertions, 1 ahead of earlier work.
        assert_eq!((f.decisions.inserted, f.decisions.inserted_ahead), (4, 1));
    }
    // With one flow in the class, stage 1 is first come, first served.
    let mut single = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1]);
    for (k, t) in all.iter().take(3).enumerate() {
        single.enqueued(0, k as u32, t, 0);
    }
    assert_eq!(order(&single, READ, 1), vec![(0, 0), (1, 0), (2, 0)]);
    assert_eq!(single.decisions.inserted, 0, "a class of one flow is not stage 1's");
}

/// Stage 1, high segment: when it is already unfair and the newcomer's flow is the most
/// slowed down, the newcomer jumps to the segment's front behind a barrier (MoveForward).
/// Flow 0's first read has waited long (arrived at 0); flow 1's five reads arrived at `now`
/// (5 ms, within the first epoch). Flow 0's read has slowdown (5 ms + svc) / svc, far above
/// flow 1's 2..6, so fairness is far below 0.6 and flow 0 is the most slowed down.
#[test]
fn the_most_slowed_down_flow_jumps_forward_when_the_segment_is_unfair() {
    let cfg = config();
    let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
    f.flows.iter_mut().for_each(|fc| fc.low = [false; 2]);
    let now: Ps = 5_000_000_000;
    let all: Vec<Transaction> =
        (0..7).map(|k| tx(TxKind::User, FlashOp::Read, (k == 0 || k == 6) as u32 ^ 1, k + 1)).collect();
    // tx 0: flow 0 at t = 0; tx 1..=5: flow 1 at `now`; tx 6: flow 0 at `now`.
    f.enqueued(0, 0, &all[0], 0);
    for k in 1..=5 {
        f.enqueued(0, k, &all[k as usize], now);
    }
    assert_eq!(order(&f, READ, 1), vec![(0, 0), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1)]);
    f.enqueued(0, 6, &all[6], now);
    let q = order(&f, READ, 1);
    // Flow 0's new read stops behind flow 0's own earlier read (position 1), as a barrier.
    assert_eq!(q[0], (0, 0));
    assert_eq!(q[1], (6, 0), "{q:?}");
    assert!(f.chips[0].ops[READ].class(1)[1].barrier);
}

/// Reads served per priority class in `picks` dispatches, with flow f in class `prio[f]` and
/// plenty of reads queued for each flow, under `stages`; and the decisions counted.
fn served_and_decisions(prio: &[u8], stages: u8, picks: usize) -> ([u32; 4], Decisions) {
    let mut cfg = config();
    cfg.tsu.flin.stages = stages;
    let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, prio);
    let mut all = Vec::new();
    let mut queues = ChipQueues::new(1);
    let flows = prio.len() as u32;
    for k in 0..20 * flows {
        let t = tx(TxKind::User, FlashOp::Read, k % flows, k as u64 + 1);
        queues.push(
            QueueClass::UserRead,
            0,
            QueueEntry { tx: k, lpn: k, page: NONE, page_at: Place::NONE, op: FlashOp::Read, seq: k as u64 + 1 },
        );
        f.enqueued(0, k, &t, 0);
        all.push(t);
    }
    let excluded = [false; QUEUE_CLASSES];
    let mut served = [0; 4];
    for _ in 0..picks {
        let ctx = calm(&queues, &all, &excluded);
        let p = f.pick(&ctx).unwrap();
        let leader = p.leader.unwrap();
        served[prio[all[leader as usize].flow as usize] as usize] += 1;
        f.dispatched(0, &[leader], &all, 0);
    }
    (served, f.decisions)
}

fn served_per_class(prio: &[u8], stages: u8, picks: usize) -> [u32; 4] {
    served_and_decisions(prio, stages, picks).0
}

/// Stage 2: four flows, one per priority class, each with plenty of queued reads. Fifteen
/// dispatches serve the classes 8, 4, 2 and 1 times (weights 2^i). With stage 2 off
/// (`stages = 1`), plain round robin serves them in turn, 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2:
/// 4, 4, 4 and 3 times.
#[test]
fn priority_classes_get_their_weighted_shares() {
    assert_eq!(served_per_class(&[0, 1, 2, 3], 3, 15), [8, 4, 2, 1]);
    assert_eq!(served_per_class(&[0, 1, 2, 3], 2, 15), [8, 4, 2, 1]);
    assert_eq!(served_per_class(&[0, 1, 2, 3], 1, 15), [4, 4, 4, 3]);
}

/// Stage 2 on and off, an urgent and a low-priority flow. Weighted, the walk over TURNS from
/// turn 0 finds class 0 at turns 0, 2, 4, 6, class 3 at turn 7, class 0 at 8, 10, 12, 14:
/// 8 urgent reads and 1 low in 9 dispatches. Plain round robin alternates 0 3 0 3 0 3 0 3 0:
/// 5 and 4. With one priority class only (the reproduction's mixes) both serve the class's
/// head every time.
#[test]
fn without_stage_2_the_classes_take_plain_turns() {
    assert_eq!(served_per_class(&[0, 3], 2, 9), [8, 0, 0, 1]);
    assert_eq!(served_per_class(&[0, 3], 1, 9), [5, 0, 0, 4]);
    assert_eq!(served_per_class(&[1, 1], 2, 9), served_per_class(&[1, 1], 1, 9));
    // The counter: all 9 picks had a read candidate with both classes queued (20 reads
    // each); with one class, none was contested.
    let (_, d) = served_and_decisions(&[0, 3], 2, 9);
    assert_eq!((d.candidates, d.candidates_contested), (9, 9));
    let (_, d) = served_and_decisions(&[1, 1], 2, 9);
    assert_eq!((d.candidates, d.candidates_contested), (9, 0));
}

/// Stage 3 on and off. Read service 100, write service 1000 (set by hand); the write arrived
/// at 0, the read at `now`. At now = 20 000: PW_read = (0 + 1000) / 100 = 10, PW_write =
/// (20 000 + 100) / 1000 = 20.1, so FLIN (stages 3) serves the write; read-first (stages 1
/// and 2) serves the read. At now = 5 000, PW_write = 5.1 < 10: the read in every setting.
/// With no read queued and GC urgent, read-first runs GC before the write (as `ooo`).
#[test]
fn without_stage_3_reads_go_first() {
    let counts = |stages: u8, now: Ps, with_read: bool, urgency: GcUrgency| {
        let mut cfg = config();
        cfg.tsu.flin.stages = stages;
        let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
        f.svc = [100, 1000];
        let mut all = vec![tx(TxKind::User, FlashOp::Program, 0, 1), tx(TxKind::User, FlashOp::Read, 1, 2)];
        all.push(tx(TxKind::Gc, FlashOp::Read, NONE, 3));
        let mut queues = ChipQueues::new(1);
        let entry = |k: u32, op| QueueEntry { tx: k, lpn: k, page: NONE, page_at: Place::NONE, op, seq: k as u64 + 1 };
        queues.push(QueueClass::UserWrite, 0, entry(0, FlashOp::Program));
        f.enqueued(0, 0, &all[0], 0);
        if with_read {
            queues.push(QueueClass::UserRead, 0, entry(1, FlashOp::Read));
            f.enqueued(0, 1, &all[1], now);
        }
        queues.push(QueueClass::GcRead, 0, entry(2, FlashOp::Read));
        let excluded = [false; QUEUE_CLASSES];
        let ctx = PickContext { chip: 0, now, queues: &queues, txs: &all, gc_urgency: urgency, excluded: &excluded };
        let class = f.pick(&ctx).unwrap().class;
        let d = f.decisions;
        (class, d.both_candidates, d.write_first)
    };
    let first = |stages, now, with_read, urgency| counts(stages, now, with_read, urgency).0;
    let calm = GcUrgency::None;
    assert_eq!(first(3, 20_000, true, calm), QueueClass::UserWrite);
    assert_eq!(first(2, 20_000, true, calm), QueueClass::UserRead);
    assert_eq!(first(1, 20_000, true, calm), QueueClass::UserRead);
    for stages in 1..=3 {
        assert_eq!(first(stages, 5_000, true, calm), QueueClass::UserRead, "stages {stages}");
    }
    assert_eq!(first(2, 20_000, false, GcUrgency::Critical), QueueClass::GcRead);
    assert_eq!(first(2, 20_000, false, calm), QueueClass::UserWrite);
    assert_eq!(first(2, 20_000, true, GcUrgency::Critical), QueueClass::UserRead);
    // The counters: one pick with both candidates; the write's side went first under FLIN.
    assert_eq!(counts(3, 20_000, true, calm), (QueueClass::UserWrite, 1, 1));
    assert_eq!(counts(2, 20_000, true, calm), (QueueClass::UserRead, 1, 0));
    assert_eq!(counts(3, 20_000, false, calm), (QueueClass::UserWrite, 0, 0));
}

/// Stage 2's lookup table against the round-robin rule worked by hand on
/// TURNS = [0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0]: from turn 1 with only class 3
/// queued, the walk reaches turn 7; from turn 8 with classes 2 and 3 queued, turn 11 (class
/// 2); from turn 12 with only class 3, it wraps to turn 7; from turn 14 with class 1 only,
/// it wraps to turn 1; with nothing queued, no turn.
#[test]
fn the_next_turn_table_follows_the_round_robin_walk() {
    assert_eq!(NEXT_TURN[1][0b1000], 7);
    assert_eq!(NEXT_TURN[8][0b1100], 11);
    assert_eq!(NEXT_TURN[12][0b1000], 7);
    assert_eq!(NEXT_TURN[14][0b0010], 1);
    assert_eq!(NEXT_TURN[3][0b0001], 4);
    assert_eq!(NEXT_TURN[3][0b0100], 3);
    assert_eq!(NEXT_TURN[5][0], NO_TURN);
}

/// Stage 3 by the rule: a read (service 100, waited 5) and a write (service 1000, waited
/// 10 000): PW_read = (5 + 1000) / 100 = 10.05, PW_write = (10 000 + 100) / 1000 = 10.1, so
/// the write goes; had the read waited 10, PW_read = 10.1 ≥ PW_write and the read goes.
#[test]
fn wait_balancing_serves_the_queue_with_the_larger_proportional_wait() {
    let e = |arrival, svc| Entry { tx: 0, flow: 0, arrival, alone_wait: 0, svc, barrier: false };
    let both = GcInWaits::Both;
    let (pr, pw) = proportional_waits(&e(9_995, 100), &e(0, 1000), 0, both, 10_000);
    assert!((pr - 10.05).abs() < 1e-12 && (pw - 10.1).abs() < 1e-12);
    assert!(pr < pw);
    let (pr, pw) = proportional_waits(&e(9_990, 100), &e(0, 1000), 0, both, 10_000);
    assert!(pr >= pw);
}

/// Stage 3 with T_GC = 1000 on both sides (the port's rule): the read (service 100, waited 5)
/// has PW_read = (5 + 1000 + 1000) / 100 = 20.05. A write (service 1000) that waited 19 000
/// has PW_write = (19 000 + 100 + 1000) / 1000 = 20.1 and goes first; with T_GC on the read's
/// side only it would have (19 000 + 100) / 1000 = 19.1 and wait: a write must then wait
/// 19 950 to go, 950 longer, and the gap grows with T_GC (T_GC × (1/100 − 1/1000) × 1000).
#[test]
fn gc_work_before_the_write_counts_on_both_sides_of_stage_3() {
    let e = |arrival, svc| Entry { tx: 0, flow: 0, arrival, alone_wait: 0, svc, barrier: false };
    let now = 19_005;
    let (read, write) = (e(19_000, 100), e(5, 1000));
    let (pr, pw) = proportional_waits(&read, &write, 1000, GcInWaits::Both, now);
    assert!((pr - 20.05).abs() < 1e-12 && (pw - 20.1).abs() < 1e-12 && pw > pr);
    let (pr, pw) = proportional_waits(&read, &write, 1000, GcInWaits::ReadOnly, now);
    assert!((pr - 20.05).abs() < 1e-12 && (pw - 19.1).abs() < 1e-12 && pr > pw);
}

/// Intensity on the FLIN preset's drive (32 chips of 8 KiB pages): a flow that enqueues one
/// read per read service time keeps the chip busy, about 100 reads per 10 ms epoch. The
/// authors' α_read (32 MiB / 32 chips / 8 KiB = 128 reads) never sees it as high-intensity;
/// a quarter of what the chip serves in an epoch does, and a flow at a fifth of the chip
/// stays low-intensity.
#[test]
fn a_flow_saturating_a_chip_is_high_intensity() {
    let mut cfg = config();
    cfg.nand.channels = 8;
    cfg.nand.chips_per_channel = 4;
    cfg.nand.page_bytes = 8192;
    let epoch: Ps = 10_000_000_000;
    let classed_low = |cfg: &Sections, every: u32| {
        let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
        let gap = f.svc[READ] * every as Ps;
        let n = epoch / gap;
        for k in 0..n {
            let t = tx(TxKind::User, FlashOp::Read, 0, k + 1);
            f.enqueued(0, k as u32, &t, k * gap);
            f.dequeued(0, k as u32);
        }
        // The first arrival of the next epoch closes this one.
        f.enqueued(0, n as u32, &tx(TxKind::User, FlashOp::Read, 1, n + 1), epoch);
        (n, f.flow_on_chip(0, 0).low[READ])
    };
    let (saturating, low) = classed_low(&cfg, 1);
    assert!((90..128).contains(&saturating), "{saturating} reads per epoch");
    assert!(!low, "chip_share: a saturating flow is high-intensity");
    assert!(classed_low(&cfg, 5).1, "a fifth of the chip is low-intensity");
    cfg.tsu.flin.intensity = FlinIntensity::DriveBytes;
    let f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
    assert_eq!(f.alpha[READ], 128);
    assert!(classed_low(&cfg, 1).1, "drive_bytes: the saturating flow stays low-intensity");
}

/// GC before a write (§1.7): 4 GC reads are queued on the chip; flow 0 wrote 1 page there
/// since the last erase, flow 1 wrote 3. Flow 1's write owes N_GC = 4 × 3 / 4 = 3 page moves
/// (3 GC reads, 3 GC writes) before it goes, and the GC erase that is ready goes right after
/// it; flow 0's would owe 4 × 1 / 4 = 1. Under the earlier rule (`urgent`) the write goes at
/// once while no plane is urgent, and the erase waits for idle time; so it does with stage 3
/// off (`stages` 1 or 2).
#[test]
fn a_write_pays_its_flows_share_of_the_queued_gc_first() {
    let moves_before_write = |writer: u32, rule: GcBeforeWrite, stages: u8| {
        let mut cfg = config();
        cfg.tsu.flin.gc_before_write = rule;
        cfg.tsu.flin.stages = stages;
        let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
        f.flow_on_chip(0, 0).writes_since_erase = 1;
        f.flow_on_chip(0, 1).writes_since_erase = 3;
        f.chips[0].writes_total = 4;
        let mut all: Vec<Transaction> = (0..4).map(|k| tx(TxKind::Gc, FlashOp::Read, NONE, k + 1)).collect();
        all.push(tx(TxKind::User, FlashOp::Program, writer, 5));
        let mut queues = ChipQueues::new(1);
        let entry = |k: u32, op| QueueEntry { tx: k, lpn: k, page: NONE, page_at: Place::NONE, op, seq: k as u64 + 1 };
        for k in 0..4 {
            queues.push(QueueClass::GcRead, 0, entry(k, FlashOp::Read));
        }
        queues.push(QueueClass::UserWrite, 0, entry(4, FlashOp::Program));
        all.push(tx(TxKind::Gc, FlashOp::Erase, NONE, 6));
        queues.push(QueueClass::GcErase, 0, entry(5, FlashOp::Erase));
        f.enqueued(0, 4, &all[4], 0);
        let excluded = [false; QUEUE_CLASSES];
        let mut moves = 0;
        loop {
            let ctx = calm(&queues, &all, &excluded);
            let p = f.pick(&ctx).unwrap();
            let tx = queues.take(p.class, 0, 0);
            match p.class {
                QueueClass::UserWrite => {
                    f.dispatched(0, &[tx], &all, 0);
                    let ctx = calm(&queues, &all, &excluded);
                    return (moves, f.pick(&ctx).map(|p| p.class));
                }
                QueueClass::GcRead => {
                    // The page read comes back as its GC write.
                    let w = all.len() as u32;
                    all.push(tx_of(TxKind::Gc, FlashOp::Program, w));
                    queues.push(QueueClass::GcWrite, 0, entry(w, FlashOp::Program));
                }
                QueueClass::GcWrite => moves += 1,
                other => panic!("picked {other:?}"),
            }
            f.dispatched(0, &[tx], &all, 0);
        }
    };
    let erase = Some(QueueClass::GcErase);
    assert_eq!(moves_before_write(1, GcBeforeWrite::Share, 3), (3, erase));
    assert_eq!(moves_before_write(0, GcBeforeWrite::Share, 3), (1, erase));
    // Idle after the write: the background order starts with the queued GC reads.
    assert_eq!(moves_before_write(1, GcBeforeWrite::Urgent, 3), (0, Some(QueueClass::GcRead)));
    // Without stage 3 (read-first, GC as under `ooo`) nobody pays GC before a write.
    for stages in [1, 2] {
        assert_eq!(moves_before_write(1, GcBeforeWrite::Share, stages), (0, Some(QueueClass::GcRead)));
    }
}

fn tx_of(kind: TxKind, op: FlashOp, seq: u32) -> Transaction {
    tx(kind, op, NONE, seq as u64 + 1)
}

/// The slowdown estimate counts the chip's command under way: one queued read of service
/// 100 that arrived now, with no alone wait, has slowdown (0 + 400 + 100) / 100 = 5 while the
/// chip is busy for 400 more, and 1 when idle.
#[test]
fn slowdowns_count_the_chips_remaining_busy_time() {
    let q = [Entry { tx: 0, flow: 0, arrival: 1_000, alone_wait: 0, svc: 100, barrier: false }];
    let mut out = Vec::new();
    slowdowns(&q, Clock { now: 1_000, busy: 400 }, &mut out);
    assert_eq!(out, [5.0]);
    slowdowns(&q, Clock { now: 1_000, busy: 0 }, &mut out);
    assert_eq!(out, [1.0]);
}

/// GC charging: flow 0 wrote three pages on the chip since its last erase, flow 1 one; a GC
/// read is charged 3 : 1; after the erase (also charged 3 : 1) the counts restart, and GC with
/// no writes since is nobody's (the last slot).
#[test]
fn gc_work_is_charged_to_the_flows_that_wrote() {
    let cfg = config();
    let mut f = Flin::new(&cfg.nand, &cfg.tsu.flin, &[1, 1]);
    let mut all: Vec<Transaction> =
        (0..4).map(|k| tx(TxKind::User, FlashOp::Program, (k == 3) as u32, k + 1)).collect();
    all.push(tx(TxKind::Gc, FlashOp::Read, NONE, 5));
    all.push(tx(TxKind::Gc, FlashOp::Erase, NONE, 6));
    for k in 0..4 {
        f.enqueued(0, k, &all[k as usize], 0);
        f.dispatched(0, &[k], &all, 0);
    }
    assert_eq!(writes_since_erase(&f), vec![3, 1, 0]);
    f.dispatched(0, &[4], &all, 0);
    let g = f.gc_charged_us().unwrap();
    assert!(g[0] > 0.0 && (g[0] - 3.0 * g[1]).abs() < 1e-9 && g[2] == 0.0, "{g:?}");
    f.dispatched(0, &[5], &all, 0);
    assert_eq!(writes_since_erase(&f), vec![0, 0, 0]);
    let before = f.gc_charged_us().unwrap();
    f.dispatched(0, &[4], &all, 0);
    let after = f.gc_charged_us().unwrap();
    assert_eq!((after[0], after[1]), (before[0], before[1]));
    assert!(after[2] > before[2]);
}
