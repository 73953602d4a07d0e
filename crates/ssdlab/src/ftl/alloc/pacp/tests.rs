//! PACP's rules worked by hand (docs/techniques.md §10.2–10.4).

use super::*;

/// The config sections these tests set (the whole `Config` is composed above this layer).
#[derive(Default)]
struct Sections {
    pub nand: crate::nand::config::NandConfig,
}

/// 4 channels × 2 chips × 1 die × 2 planes.
fn geometry() -> Geometry {
    let mut cfg = Sections::default();
    cfg.nand.channels = 4;
    cfg.nand.chips_per_channel = 2;
    cfg.nand.dies_per_chip = 1;
    cfg.nand.planes_per_die = 2;
    Geometry::from_config(&cfg.nand)
}

/// A 1-bit history predicts from the request before, never from the one being recorded:
/// write, read, read on one page is "no history", then "write" (wrong), then "read" (right).
#[test]
fn a_one_bit_history_predicts_before_it_records() {
    let mut t = Trh::new(8, 1);
    assert_eq!(t.predict(5), Prediction::None);
    t.record(5, true, false);
    assert_eq!((t.predicted, t.correct), (0, 0), "nothing to predict from yet");
    assert_eq!(t.predict(5), Prediction::Write);
    t.record(5, false, false);
    assert_eq!((t.predicted, t.correct), (1, 0));
    assert_eq!(t.predict(5), Prediction::Read, "only the last request is kept");
    t.record(5, false, false);
    assert_eq!((t.predicted, t.correct), (2, 1));
    assert_eq!(t.accuracy(), 0.5);
}

/// Two bits: write then read is a tie, which the page's channel settles (a Write channel:
/// write); a third request pushes the oldest out (read, read: read).
#[test]
fn an_even_history_ties_and_the_channel_decides() {
    let mut t = Trh::new(4, 2);
    t.record(1, true, false);
    t.record(1, false, false);
    assert_eq!(t.predict(1), Prediction::Tie);
    t.record(1, true, true);
    assert_eq!((t.predicted, t.correct), (2, 1), "write predicted (history write) then tie on a Write channel: right");
    assert_eq!(t.predict(1), Prediction::Tie, "read, write");
    t.record(1, false, false);
    t.record(1, false, false);
    assert_eq!(t.predict(1), Prediction::Read);
}

/// Algorithm 1 on 2 Read (0, 1) and 2 Write channels (2, 3): a read-predicted page goes to a
/// Read channel in rotation, skipping a busy one; only when both Read channels are busy
/// does it spill to a Write channel; a write-predicted page stays on Write channels while
/// one of them is free, even with the Read channels idle; no history: any channel.
#[test]
fn algorithm_1_keeps_each_type_on_its_channels_and_spills_only_when_all_are_busy() {
    let geo = geometry();
    let part = Partition::new(4, 2, Split::Fixed, 1);
    let mut rot = Rotation::new(&geo);
    let mut load = vec![0u32; 8];
    let channel = |p: u32| geo.channel_of_chip(geo.chip_of_plane(p));
    let set = |pred, load: &[u32]| channel_set(pred, false, &part, &geo, load);
    assert_eq!(set(Prediction::Read, &load), ChannelSet::Read);
    assert_eq!(channel(choose_plane(ChannelSet::Read, &part, &geo, &load, &mut rot)), 0);
    assert_eq!(channel(choose_plane(ChannelSet::Read, &part, &geo, &load, &mut rot)), 1);
    // Channel 0's two chips busy: the rotation, back at 0, skips it.
    load[0] = 1;
    load[1] = 1;
    assert_eq!(set(Prediction::Read, &load), ChannelSet::Read, "channel 1 is free");
    assert_eq!(channel(choose_plane(ChannelSet::Read, &part, &geo, &load, &mut rot)), 1);
    // One chip of channel 1 busy: the channel is not busy; its free chip is taken.
    load[2] = 1;
    let p = choose_plane(ChannelSet::Read, &part, &geo, &load, &mut rot);
    assert_eq!((channel(p), geo.chip_of_plane(p)), (1, 3));
    load[3] = 1;
    assert_eq!(set(Prediction::Read, &load), ChannelSet::Write, "every Read channel busy: spill");
    assert_eq!(set(Prediction::Write, &load), ChannelSet::Write);
    load[4..8].fill(1);
    assert_eq!(set(Prediction::Write, &load), ChannelSet::Read, "every Write channel busy: spill");
    assert_eq!(set(Prediction::None, &load), ChannelSet::Any);
    assert_eq!(channel_set(Prediction::Tie, true, &part, &geo, &load), ChannelSet::Write);
    assert_eq!(channel_set(Prediction::Tie, false, &part, &geo, &load), ChannelSet::Read);
}

/// Every `period` page accesses the split moves one channel toward round(4 × R / (R + W)); the
/// channel relabelled is the one of the shrinking type with the fewest pages of that type.
#[test]
fn relabelling_takes_the_channel_with_the_fewest_pages_of_its_old_type() {
    let mut part = Partition::new(4, 2, Split::Adaptive, 2);
    for _ in 0..5 {
        part.placed(0, false);
    }
    part.placed(1, false);
    part.placed(1, false);
    assert_eq!(part.tick(1, 3), None, "not yet a period");
    // round(4 × 1 / 4) = 1 Read channel: one of 0 (5 read pages) and 1 (2) turns Write.
    assert_eq!(part.tick(1, 3), Some(1));
    assert_eq!(part.channels(true).collect::<Vec<_>>(), vec![0]);
    // All reads: round(4) clamps to 3; the Write channel with the fewest write pages is
    // taken — 1 holds none (its 2 pages are read ones), 2 and 3 one each; then 2 (a tie with
    // 3: the lower index).
    part.placed(2, true);
    part.placed(3, true);
    part.tick(9, 0);
    assert_eq!(part.tick(9, 0), Some(1));
    part.tick(9, 0);
    assert_eq!(part.tick(9, 0), Some(2), "one step per period");
    part.tick(9, 0);
    assert_eq!(part.tick(9, 0), None, "at most channels − 1 Read channels");
    let mut fixed = Partition::new(4, 2, Split::Fixed, 1);
    assert_eq!(fixed.tick(0, 9), None, "Lv et al.'s split never moves");
}

/// GC-piggybacked migration: a GC move off a Write channel of a page whose history says
/// read is given a Read-channel plane (and counted); a move off a Read channel, or of a
/// page predicted write, stays where GC puts it.
#[test]
fn a_read_page_in_a_write_channel_gc_victim_migrates_to_a_read_channel() {
    let geo = geometry();
    let cfg = PartitionConfig::default();
    let mut p = ChannelPartition::new(Scheme::Pacp, &cfg, &geo, 64, 2);
    let load = vec![0u32; 8];
    let ppn_on = |channel: u32| geo.ppn(geo.plane_index(channel, 0, 0, 0), 0, 0);
    let channel = |plane: u32| geo.channel_of_chip(geo.chip_of_plane(plane));
    p.trh.as_mut().unwrap().record(7, false, true);
    p.trh.as_mut().unwrap().record(8, true, true);
    let room = |_| true;
    let to = p.migration_plane(7, ppn_on(3), &load, room).expect("read page on Write channel 3 migrates");
    assert!(p.part.is_read(channel(to)), "to a Read channel: {}", channel(to));
    assert_eq!(p.migrated_gc, 1);
    assert_eq!(p.migration_plane(7, ppn_on(0), &load, room), None, "already on a Read channel");
    assert_eq!(p.migration_plane(8, ppn_on(3), &load, room), None, "predicted write");
    assert_eq!(p.migration_plane(7, ppn_on(3), &load, |_| false), None, "no room on the Read plane");
    assert_eq!(p.migrated_gc, 1);
    let lv = ChannelPartition::new(Scheme::Lv, &cfg, &geo, 64, 2);
    assert!(lv.trh.is_none(), "Lv et al. keep no history");
}

/// `dynamic_rr` is the rotation without a partition: channels 0, 1, 2, 3 in turn, a busy
/// channel skipped.
#[test]
fn dynamic_rr_rotates_over_every_channel_skipping_busy_ones() {
    let geo = geometry();
    let mut rot = Rotation::new(&geo);
    let mut load = vec![0u32; 8];
    let channel = |p: u32| geo.channel_of_chip(geo.chip_of_plane(p));
    let mut next = |load: &[u32]| channel(rotate_within(ChannelSet::Any, |_| true, &geo, load, &mut rot));
    assert_eq!([next(&load), next(&load), next(&load), next(&load)], [0, 1, 2, 3]);
    load[0] = 1;
    load[1] = 1;
    assert_eq!(next(&load), 1, "both chips of channel 0 busy: skipped");
    load[2..8].fill(1);
    assert_eq!(next(&load), 2, "every channel busy: the rotation's choice");
}

/// The preload's first split, round(channels × R / (R + W)) clamped to [1, channels − 1]: 3 of
/// 8 pages read first → 3 of 8 channels; 1 of 100 → 0 → 1; all → 7; none seen → half.
#[test]
fn a_preloaded_split_starts_at_the_read_first_share_of_the_pages_the_workload_touches() {
    assert_eq!(preload_read_channels(8, 3, 5), 3);
    assert_eq!(preload_read_channels(8, 1, 99), 1);
    assert_eq!(preload_read_channels(8, 10, 0), 7);
    assert_eq!(preload_read_channels(8, 0, 0), 4);
    assert_eq!(preload_read_channels(32, 355, 645), 11, "round(11.36)");
}

/// Each host access is counted on its channel, apart when the channel is Read; a write whose
/// prediction's channels are all busy counts as spilled, a relabelling is logged with its
/// time. 4 channels, 2 Read (0, 1), period 3.
#[test]
fn host_accesses_spills_and_relabellings_are_counted_where_they_happen() {
    let geo = geometry();
    let cfg = PartitionConfig { n_read: 2, period: 3, ..PartitionConfig::default() };
    let mut p = ChannelPartition::new(Scheme::Pacp, &cfg, &geo, 64, 2);
    let mut load = vec![0u32; 8];
    let channel = |p: u32| geo.channel_of_chip(geo.chip_of_plane(p));
    // Page 1: no history → any channel (rotation from 0: channel 0, a Read channel).
    let first = p.write_plane(1, crate::nand::NONE, &load, 1_000_000, |_| true);
    assert_eq!(channel(first), 0);
    // Page 1 predicted write; both Write channels (2, 3) busy → spilled to a Read channel.
    load[4..8].fill(1);
    let ppn = first * geo.pages_per_plane();
    let second = p.write_plane(1, ppn, &load, 2_000_000, |_| true);
    assert!(p.part.is_read(channel(second)));
    p.host_read(1, second * geo.pages_per_plane(), 3_000_000);
    let r = p.report();
    assert_eq!(r.spilled_writes, 1);
    let writes: u64 = r.channels.iter().map(|c| c.host_writes).sum();
    let as_read: u64 = r.channels.iter().map(|c| c.host_writes_as_read).sum();
    assert_eq!((writes, as_read), (2, 2));
    assert_eq!(r.channels[channel(second) as usize].host_reads_as_read, 1);
    // Third access: the period ends. Page 1 now predicts read, nothing predicts write: the
    // target is round(4 × 1 / 1) = 4 → 3, one Write channel becomes Read at 3 µs.
    assert_eq!(r.relabel_log.len(), 1);
    assert_eq!((r.relabel_log[0].t_us, r.relabel_log[0].to_read), (3.0, true));
    assert_eq!(r.read_channels_end, 3);
}

/// Lv et al. place and migrate by access characteristic (docs/techniques.md §6.3): on 4
/// channels with channel 0 the read area, a page on a Write channel that was read twice and
/// not written within the window goes to a Read-channel plane when GC moves it; a page
/// written within the window stays; with `gc_migration = false` nothing moves. Regions of
/// one page (4 KiB pages, `lv_region_bytes` = 4096).
#[test]
fn lv_migrates_a_read_dominant_page_out_of_a_write_channel() {
    let geo = geometry();
    let cfg = PartitionConfig { lv_region_bytes: 4096, lv_window: 100, ..PartitionConfig::default() };
    let mut p = ChannelPartition::new(Scheme::Lv, &cfg, &geo, 64, 1);
    assert!(p.part.is_read(0) && !p.part.is_read(1));
    let load = vec![0; geo.chips() as usize];
    // Page 0 of channel 1's first plane holds lpn 7; page 1 of it holds lpn 9.
    let on_write_channel = |page: u32| {
        let plane = (0..geo.planes()).find(|&pl| geo.channel_of_chip(geo.chip_of_plane(pl)) == 1).unwrap();
        plane * geo.blocks_per_plane * geo.pages_per_block + page
    };
    p.host_read(7, on_write_channel(0), 0);
    p.host_read(7, on_write_channel(0), 0);
    p.host_read(9, on_write_channel(1), 0);
    p.host_read(9, on_write_channel(1), 0);
    let _ = p.write_plane(9, on_write_channel(1), &load, 0, |_| true);
    assert!(p.predicts_read(7) && !p.predicts_read(9));
    let plane = p.migration_plane(7, on_write_channel(0), &load, |_| true).expect("moves to the read area");
    assert_eq!(geo.channel_of_chip(geo.chip_of_plane(plane)), 0);
    assert_eq!(p.migration_plane(9, on_write_channel(1), &load, |_| true), None, "written in the window");
    assert_eq!(p.migrated_gc, 1);
    let off = PartitionConfig { gc_migration: Some(false), ..cfg };
    let mut q = ChannelPartition::new(Scheme::Lv, &off, &geo, 64, 1);
    q.host_read(7, on_write_channel(0), 0);
    q.host_read(7, on_write_channel(0), 0);
    assert_eq!(q.migration_plane(7, on_write_channel(0), &load, |_| true), None);
}

/// `placement = "write_channels"` (the partition without TRH): on 4 channels, 0 and 1 Read,
/// 2 and 3 Write, worked by hand. Page 5 was read (its history says read), page 6 never
/// accessed. Under `trh` page 5's write goes to a Read channel (0, the Read rotation's
/// first) and page 6's to any channel (0, the free rotation's first). Under `write_channels`
/// both go to Write channels (2, then 3, the Write rotation); with both Write channels busy
/// a third write (page 7) spills to Read channel 0, and only that one counts as a host write
/// on a Read channel and as spilled. The histories are kept either way: page 5's write is
/// predicted (read: wrong), and pages 5, 6 and 7 now count as write-predicted for the split.
#[test]
fn write_channels_placement_sends_every_host_write_to_the_write_channels() {
    let geo = geometry();
    let channel = |p: u32| geo.channel_of_chip(geo.chip_of_plane(p));
    let on = |c: u32| geo.ppn(geo.plane_index(c, 0, 0, 0), 0, 0);
    let run = |placement| {
        let cfg = PartitionConfig { n_read: 2, placement, ..PartitionConfig::default() };
        let mut p = ChannelPartition::new(Scheme::Pacp, &cfg, &geo, 64, 2);
        let mut load = vec![0u32; 8];
        p.host_read(5, on(2), 0);
        let five = channel(p.write_plane(5, on(2), &load, 1, |_| true));
        let six = channel(p.write_plane(6, crate::nand::NONE, &load, 2, |_| true));
        load[4..8].fill(1);
        let seven = channel(p.write_plane(7, crate::nand::NONE, &load, 3, |_| true));
        let r = p.report();
        let as_read: u64 = r.channels.iter().map(|c| c.host_writes_as_read).sum();
        let trh = p.trh.as_ref().unwrap();
        let by = WritesByPrediction { none: 2, read: 1, write: 0, tie: 0 };
        assert_eq!(r.writes_by_prediction, by, "5 read-predicted, 6 and 7 without history, either way");
        ([five, six, seven], as_read, r.spilled_writes, (trh.predicted, trh.correct), p.part.page_totals())
    };
    let (chans, as_read, spilled, scored, totals) = run(Placement::Trh);
    assert_eq!(chans, [0, 0, 1], "read-predicted → Read; no history → any (0, then 1: rotation)");
    assert_eq!((as_read, spilled, scored, totals), (3, 0, (1, 0), (0, 3)));
    let (chans, as_read, spilled, scored, totals) = run(Placement::WriteChannels);
    assert_eq!(chans, [2, 3, 0], "Write channels in rotation; both busy: spill to Read channel 0");
    assert_eq!((as_read, spilled, scored, totals), (1, 1, (1, 0), (0, 3)));
}

/// Idle-time migration's memo: block 3 (opened as number 7) searched and found without a
/// read-predicted page is skipped while nothing can have changed that; a read of page 9
/// held elsewhere leaves it; a read of page 5 held in block 3 after a write (its 1-bit
/// history turns read) makes block 3 worth searching again; so does reopening (number 8).
/// Without idle-time migration there is no memo: every block may hold such pages.
#[test]
fn a_block_found_without_read_pages_is_searched_again_only_after_a_read_turns_one() {
    let geo = geometry();
    let mut p = ChannelPartition::new(Scheme::Pacp, &PartitionConfig::default(), &geo, 64, 2);
    let in_block = |block: u32, page: u32| block * geo.pages_per_block + page;
    p.trh.as_mut().unwrap().record(5, true, true);
    assert!(p.may_hold_read_pages(3, 7), "never searched");
    p.holds_no_read_pages(3, 7);
    assert!(!p.may_hold_read_pages(3, 7));
    assert!(p.may_hold_read_pages(3, 8), "reopened since");
    p.host_read(9, in_block(4, 0), 0);
    assert!(!p.may_hold_read_pages(3, 7), "a read in another block");
    p.host_read(5, in_block(3, 2), 0);
    assert!(p.may_hold_read_pages(3, 7), "page 5 in block 3 now predicts read");
    let off = PartitionConfig { idle_migration: Some(false), ..PartitionConfig::default() };
    let mut q = ChannelPartition::new(Scheme::Pacp, &off, &geo, 64, 2);
    q.holds_no_read_pages(3, 7);
    assert!(q.may_hold_read_pages(3, 7));
}

/// Idle-time migration's scan keeps the 3 most invalid closed blocks of 70, worked by hand:
/// all closed with 100 valid pages but block 3 (4), 40 (2, open: not a candidate), 41 (2),
/// 50 (4: ties with 3, the lower number wins), 65 (1) and 66 (0, a GC victim: not a
/// candidate). The keys kept are (1, 65), (2, 41), (4, 3), the same as visiting block by
/// block; numbered from 700, they are 765, 741, 703.
#[test]
fn the_idle_scan_keeps_the_most_invalid_closed_blocks() {
    let mut valid = vec![100u16; 70];
    let mut state = vec![BlockState::Closed; 70];
    for (b, v) in [(3, 4), (40, 2), (41, 2), (50, 4), (65, 1), (66, 0)] {
        valid[b] = v;
    }
    state[40] = BlockState::Open;
    state[66] = BlockState::Victim;
    let mut heap = std::collections::BinaryHeap::new();
    keep_most_invalid(&mut heap, 3, 0, &valid, &state);
    assert_eq!(heap.into_sorted_vec(), vec![(1, 65), (2, 41), (4, 3)]);
    let mut heap = std::collections::BinaryHeap::new();
    keep_most_invalid(&mut heap, 3, 700, &valid, &state);
    let blocks: Vec<u32> = heap.into_sorted_vec().into_iter().map(|(_, b)| b).collect();
    assert_eq!(blocks, [765, 741, 703]);
}
