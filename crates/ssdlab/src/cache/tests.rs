use super::*;

fn one_writeback(c: &mut WriteCache) -> Option<Writeback> {
    let mut out = Vec::new();
    c.start_writeback(&mut out);
    assert!(out.len() <= 1, "lru writes back one page at a time");
    out.pop()
}

#[test]
fn lru_write_back_and_absorption() {
    let mut c = WriteCache::new(2, 0);
    assert_eq!(c.write(1, 0xff), WriteOutcome::Inserted);
    assert_eq!(c.write(2, 0x0f), WriteOutcome::Inserted);
    assert_eq!(c.write(1, 0xff), WriteOutcome::Absorbed);
    assert!(c.read(2, 0x03));
    assert!(!c.read(2, 0xf0), "sectors not cached are a miss");
    // Full of dirty pages: no room until a write-back finishes; LRU is page 1 (2 was read).
    assert_eq!(c.write(3, 1), WriteOutcome::Full);
    assert_eq!(one_writeback(&mut c), Some(Writeback { lpn: 1, mask: 0xff, trim_gen: 0, plane: None }));
    assert_eq!(c.write(3, 1), WriteOutcome::Full);
    assert!(c.read(1, 0xff), "a page being written back is still readable");
    c.writeback_done(1);
    assert_eq!(c.write(3, 1), WriteOutcome::Inserted, "clean page 1 is dropped for 3");
    assert_eq!(c.cached_mask(1), 0);
    assert_eq!(c.dirty_pages, 2);
}

/// SSDsim's buffer: the evicted page's slot takes the write at once; the page stays
/// readable until its program ends, then leaves; the write that evicted is done when
/// both its data is stored and the evicted page is programmed.
#[test]
fn release_at_eviction_frees_the_slot_when_the_write_back_starts() {
    let mut c = WriteCache::new(2, 0).releasing_at_eviction();
    c.write(1, 0xff);
    c.write(2, 0xff);
    assert_eq!(c.offer(7, 3, 0xff), Offer::Waits);
    let mut out = Vec::new();
    c.start_writeback(&mut out);
    c.charge_eviction(&out);
    assert_eq!(out.iter().map(|w| w.lpn).collect::<Vec<_>>(), vec![1]);
    assert_eq!(c.admit_waiting(), Some((7, WriteOutcome::Inserted)), "the slot of page 1 is free");
    assert!(c.read(1, 0xff), "an evicted page is readable until programmed");
    assert!(!c.write_stored(7), "write 7 waits for page 1's program");
    assert_eq!(c.offer(8, 4, 0xff), Offer::Waits, "pages 2 and 3 fill the cache");
    assert_eq!(c.writeback_done(1), Some(7));
    assert_eq!(c.cached_mask(1), 0, "programmed, page 1 left the cache");
    assert_eq!((c.len(), c.dirty_pages, c.flushing_pages), (2, 2, 0));
    // A write of a page whose write-back is in flight needs a slot again.
    c.start_writeback(&mut out);
    c.charge_eviction(&out);
    assert_eq!(out[0].lpn, 2);
    assert_eq!(c.admit_waiting(), Some((8, WriteOutcome::Inserted)));
    assert_eq!(c.write(2, 0x01), WriteOutcome::Full, "3 and 4 hold both slots");
    assert!(c.write_stored(9), "a write that evicted nothing is done when stored");
}

/// A Die-GC move comes in even when the cache is full; the cache then drops clean pages
/// until it is below its capacity again before taking a new page, so the excess is
/// transient.
#[test]
fn a_die_gc_move_may_overfill_the_cache_only_until_the_next_insertion() {
    let mut c = WriteCache::new(2, 0);
    c.write(1, 0xff);
    c.write(2, 0xff);
    assert_eq!(one_writeback(&mut c).map(|w| w.lpn), Some(1));
    c.writeback_done(1);
    c.gc_insert(3, 0xff);
    assert_eq!((c.len(), c.dirty_pages), (3, 2), "clean 1, dirty 2 and 3: one over");
    assert_eq!(c.write(4, 0xff), WriteOutcome::Full, "dropping 1 leaves 2 and 3: still full");
    assert_eq!(c.cached_mask(1), 0);
    assert_eq!(one_writeback(&mut c).map(|w| w.lpn), Some(2));
    c.writeback_done(2);
    assert_eq!(c.write(4, 0xff), WriteOutcome::Inserted);
    assert_eq!(c.len(), 2, "back to its capacity");
}

#[test]
fn a_page_written_during_write_back_stays_dirty() {
    let mut c = WriteCache::new(1, 0);
    c.write(7, 1);
    assert_eq!(one_writeback(&mut c), Some(Writeback { lpn: 7, mask: 1, trim_gen: 0, plane: None }));
    assert_eq!(c.write(7, 2), WriteOutcome::Absorbed);
    c.writeback_done(7);
    assert_eq!(c.dirty_pages, 1);
    assert_eq!(c.write(8, 1), WriteOutcome::Full);
}
