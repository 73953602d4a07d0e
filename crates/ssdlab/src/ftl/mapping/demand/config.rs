//! `[ftl.map_cache]`: the demand-based map's RAM, its levels, their organisation and the
//! flush rules. Keys left out take the scheme's defaults ([`SchemeDefaults`], one per
//! technique folder: `dftl`, `cdftl`, `tpftl`, `fmmu`); every key is documented in
//! `docs/config.md`, section `[ftl.map_cache]`.

use serde::{Deserialize, Serialize};

use super::blocks::Replacement;
use crate::error::{Error, Result};
use crate::ftl::mapping::MappingKind;

/// Which dirty translation page a watermark flush writes (`ftl.map_cache.flush_victim`;
/// docs/techniques.md §9.5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushVictim {
    /// Blend of the three below over the first 16 entries of the dirty list.
    CostBenefit,
    /// The page with the most dirty blocks.
    Greedy,
    /// The page registered longest ago.
    Oldest,
    /// The first page not updated since the last scan (second chance).
    LruUpdate,
}

/// How a flush finds the dirty CMT blocks of the translation page it writes
/// (`ftl.map_cache.flush_find`; docs/techniques.md §9.5 items 5 and 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushFind {
    /// Along the dirty translation list's `next` links: only the page's dirty blocks are
    /// visited (FMMU §4.2).
    Links,
    /// By testing every CMT block (DFTL and CDFTL, FMMU §5.2 Fig. 10c; TPFTL: its page's
    /// node): the flush visits the whole CMT.
    Scan,
}

/// When a host write's map entry is looked up (`ftl.map_cache.update_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateOrder {
    /// The write waits for its entry (a miss reads the translation page) before it is
    /// programmed: DFTL, MQSim.
    TranslateFirst,
    /// The write is programmed at once and its Update goes to the map afterwards (a miss
    /// is logged and applied when the page arrives): FMMU's HRM.
    ProgramFirst,
}

/// Where an Update or CondUpdate goes while its translation page is in the CTP
/// (`ftl.map_cache.update_target`; docs/techniques.md §9.3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateTarget {
    /// FMMU's rule [P §4.2, Fig. 8]: every update dirties a CMT block (registered on the
    /// DTL); the CTP's copy changes only when the CMT flushes into it.
    Cmt,
    /// The earlier rule, CDFTL on its own [I, docs/techniques.md §5.3 item 3]: while the page
    /// is in the CTP, the change goes to the CTP's copy in place and no CMT block becomes
    /// dirty.
    Ctp,
}

/// How a GC move's new address reaches the map (`ftl.map_cache.gc_update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GcUpdate {
    /// DFTL's rule (docs/techniques.md §5.2): an entry in the cache is updated there and marked
    /// dirty (lazy copying); the others are grouped by translation page, and each page gets
    /// one read–modify–write when the victim's moves are done (batch update). Moved entries
    /// do not enter the cache.
    Batch,
    /// Each move is an update through the cache, like a host write's (FMMU's GC requests,
    /// CondUpdate in the CMT; docs/techniques.md §9.4): a miss reads the page and the entry
    /// enters the cache dirty.
    Cache,
}

/// How much of a translation page a CMT miss transfers out of the chip
/// (`ftl.map_cache.tp_read`; docs/techniques.md §12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TpRead {
    /// The whole page.
    Page,
    /// One sector, the entry's: MQSim's choice (`SECTOR_SIZE_IN_BYTE`) [C MQSim].
    Sector,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct MapCacheConfig {
    /// Map RAM for both levels, bytes (default 1,114,112 = 1,088 KiB, FMMU's).
    pub ram_bytes: Option<u64>,
    /// Bytes of one entry in a translation page (entries per page = page size / this,
    /// rounded down).
    pub entry_bytes: Option<u32>,
    /// RAM bytes one cached entry takes, tag included (default: `entry_bytes` + a 4-byte
    /// tag); single-entry CMTs only. MQSim's is 9 (docs/techniques.md §12).
    pub cmt_entry_bytes: Option<u32>,
    /// Bytes of the first level (CMT) when there is a second (CTP); the rest is CTP.
    pub cmt_bytes: Option<u64>,
    /// Map entries per CMT block (1: entry-level).
    pub block_entries: Option<u32>,
    /// CMT blocks per set; 0: fully associative.
    pub ways: Option<u32>,
    pub replacement: Option<Replacement>,
    /// Evict non-dirty blocks first.
    pub clean_first: Option<bool>,
    /// A dirty eviction also writes back every other dirty entry of its translation page.
    pub batch_on_evict: Option<bool>,
    /// Flush when the CMT's non-dirty blocks fall to this fraction (0: only on eviction).
    pub low_watermark: Option<f64>,
    /// ... until they are back at this fraction.
    pub high_watermark: Option<f64>,
    pub flush_victim: Option<FlushVictim>,
    /// links | scan: how a flush finds its page's dirty CMT blocks (`links` needs FMMU's
    /// dirty translation list).
    pub flush_find: Option<FlushFind>,
    /// Translation-page reads in flight at most; further misses wait in order.
    pub max_outstanding_misses: Option<u32>,
    pub update_order: Option<UpdateOrder>,
    /// cmt | ctp: where an update goes while its translation page is in the CTP (two-level
    /// schemes; `ctp` is rejected without a CTP).
    pub update_target: Option<UpdateTarget>,
    pub gc_update: Option<GcUpdate>,
    /// TPFTL only: an entry in RAM holds its offset in its translation page and its PPN, not
    /// a full tag (the TP nodes' `offset_bytes` instead of [`TAG_BYTES`]).
    pub compressed_entries: Option<bool>,
    /// TPFTL only: selective prefetch on sequential runs ([`tpftl::prefetch`]).
    pub prefetch: Option<bool>,
    /// page | sector: how much of a translation page a miss reads out of the chip.
    pub tp_read: Option<TpRead>,
    /// Every translation page is on flash when the run starts, even one whose entries are
    /// all unmapped (MQSim's `Store_mapping_table_on_flash_at_start`).
    pub on_flash_at_start: Option<bool>,
}

/// A scheme's defaults for the keys a config leaves out.
pub struct SchemeDefaults {
    /// CMT share of the RAM when there is a CTP: None for one level; Some(0) for "the RAM
    /// minus two translation pages" (CDFTL's default).
    pub cmt_bytes: Option<u64>,
    pub block_entries: u32,
    pub ways: u32,
    pub replacement: Replacement,
    pub clean_first: bool,
    pub low_watermark: f64,
    pub high_watermark: f64,
    pub update_order: UpdateOrder,
    pub gc_update: GcUpdate,
    /// Dirty blocks are linked per translation page (FMMU's DTL `next` links).
    pub dirty_links: bool,
    /// The CMT is TP nodes with these defaults (TPFTL's); None: a block cache.
    pub tp_nodes: Option<TpNodeDefaults>,
}

/// The defaults of a CMT of TP nodes (`tpftl::nodes`): single entries grouped by translation
/// page, each entry stored as an offset within its page when compressed.
pub struct TpNodeDefaults {
    /// Entries compressed to an offset of `offset_bytes` by default.
    pub compressed_entries: bool,
    /// Selective prefetch by default.
    pub prefetch: bool,
    /// RAM bytes of a compressed entry's offset in its translation page: pages of up to
    /// 2^(8 × offset_bytes) entries can be addressed.
    pub offset_bytes: u64,
}

/// The resolved parameters of a run's map cache.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub entries_per_tp: u32,
    pub cmt_blocks: u32,
    pub block_entries: u32,
    pub ways: u32,
    pub replacement: Replacement,
    pub clean_first: bool,
    /// Whole translation pages the second level holds (0: none).
    pub ctp_pages: u32,
    pub batch_on_evict: bool,
    pub low_watermark: f64,
    pub high_watermark: f64,
    pub flush_victim: FlushVictim,
    pub max_outstanding_misses: u32,
    pub update_order: UpdateOrder,
    pub update_target: UpdateTarget,
    pub gc_update: GcUpdate,
    /// The scheme keeps a dirty translation list (FMMU's DTL), which picks the page a
    /// watermark flush writes.
    pub dirty_links: bool,
    /// How a flush finds its page's dirty blocks: along the DTL's `next` links (FMMU's
    /// default) or by testing every CMT block (DFTL, CDFTL, TPFTL; FMMU without its links).
    pub flush_find: FlushFind,
    /// The CMT is TP nodes (TPFTL's, [`crate::ftl::mapping::demand::tpftl::nodes`]) rather
    /// than a block cache.
    pub tp_nodes: bool,
    /// TPFTL's selective prefetch.
    pub prefetch: bool,
    pub tp_read: TpRead,
    pub on_flash_at_start: bool,
}

pub const DEFAULT_RAM_BYTES: u64 = 1_088 * 1024;
/// A CMT block's tag, bytes (the entries' logical pages follow from it).
pub const TAG_BYTES: u64 = 4;

impl MapCacheConfig {
    /// The parameters for `kind` on pages of `page_bytes`. Errors name the key and value.
    pub fn resolve(&self, file: &str, kind: MappingKind, page_bytes: u32) -> Result<Params> {
        let d = kind.defaults().expect("a demand-based mapping");
        let entry_bytes = self.entry_bytes.unwrap_or(4);
        if entry_bytes == 0 || entry_bytes > page_bytes / 2 {
            return fail(file, "ftl.map_cache.entry_bytes", entry_bytes, "must leave at least 2 entries per page");
        }
        // Whole entries only: the rest of the page is unused (MQSim's 6-byte entries leave 2
        // bytes of an 8 KiB page).
        let e = page_bytes / entry_bytes;
        let block_entries = self.block_entries.unwrap_or(d.block_entries);
        if block_entries == 0 || !e.is_multiple_of(block_entries) {
            return fail(
                file,
                "ftl.map_cache.block_entries",
                block_entries,
                &format!("must divide the {e} entries of a translation page"),
            );
        }
        let (compressed, prefetch) = self.tp_node_keys(file, kind, d, e)?;
        let tag_bytes = match &d.tp_nodes {
            Some(t) if compressed => t.offset_bytes,
            _ => TAG_BYTES,
        };
        let block_bytes = match self.cmt_entry_bytes {
            None => block_entries as u64 * entry_bytes as u64 + tag_bytes,
            Some(c) if c > 0 && block_entries == 1 && d.tp_nodes.is_none() => c as u64,
            Some(c) => {
                let why = "sets the RAM of a single-entry CMT entry, tag included: needs block_entries = 1, no TP nodes, and a positive size";
                return fail(file, "ftl.map_cache.cmt_entry_bytes", c, why);
            }
        };
        let (cmt_blocks, ctp_pages) = self.levels(file, kind, d, page_bytes, block_bytes)?;
        let (low, high) =
            (self.low_watermark.unwrap_or(d.low_watermark), self.high_watermark.unwrap_or(d.high_watermark));
        if !(0.0..1.0).contains(&low) || !(0.0..=1.0).contains(&high) || (low > 0.0 && high <= low) {
            return fail(
                file,
                "ftl.map_cache.high_watermark",
                high,
                &format!("watermarks need 0 <= low < high <= 1 (low = {low}); low = 0 turns them off"),
            );
        }
        let max_out = self.max_outstanding_misses.unwrap_or(1024);
        if max_out == 0 {
            return fail(file, "ftl.map_cache.max_outstanding_misses", 0, "must be at least 1");
        }
        Ok(Params {
            entries_per_tp: e,
            cmt_blocks: cmt_blocks as u32,
            block_entries,
            ways: self.ways.unwrap_or(d.ways),
            replacement: self.replacement.unwrap_or(d.replacement),
            clean_first: self.clean_first.unwrap_or(d.clean_first),
            ctp_pages: ctp_pages.min(u32::MAX as u64) as u32,
            batch_on_evict: self.batch_on_evict.unwrap_or(true),
            low_watermark: low,
            high_watermark: high,
            flush_victim: self.flush_victim(file, kind, d)?,
            flush_find: self.flush_find(file, kind, d)?,
            max_outstanding_misses: max_out,
            update_order: self.update_order.unwrap_or(d.update_order),
            update_target: self.update_target(file, kind, ctp_pages)?,
            gc_update: self.gc_update.unwrap_or(d.gc_update),
            dirty_links: d.dirty_links,
            tp_nodes: d.tp_nodes.is_some(),
            prefetch,
            tp_read: self.tp_read.unwrap_or(TpRead::Page),
            on_flash_at_start: self.on_flash_at_start.unwrap_or(false),
        })
    }

    /// The DTL's victim rule. Only a scheme with a dirty translation list has one: DFTL,
    /// CDFTL and TPFTL find dirty blocks by scanning the CMT and flush the translation page
    /// of the least recently used dirty block (FMMU §5.1; the rule is [I]), so they reject
    /// the key.
    fn flush_victim(&self, file: &str, kind: MappingKind, d: &SchemeDefaults) -> Result<FlushVictim> {
        match self.flush_victim {
            Some(v) if !d.dirty_links => {
                let why = format!(
                    "{kind:?} has no dirty translation list: its watermark flushes write the page of the least recently used dirty CMT block; drop the key"
                );
                fail(file, "ftl.map_cache.flush_victim", v, &why)
            }
            v => Ok(v.unwrap_or(FlushVictim::CostBenefit)),
        }
    }

    /// How flushes find their dirty blocks: following links needs the dirty translation
    /// list, so DFTL, CDFTL and TPFTL (which test every block) reject `links`.
    fn flush_find(&self, file: &str, kind: MappingKind, d: &SchemeDefaults) -> Result<FlushFind> {
        match self.flush_find {
            Some(FlushFind::Links) if !d.dirty_links => {
                let why = format!(
                    "{kind:?} has no dirty translation list to follow: its flushes test every CMT block (\"scan\")"
                );
                fail(file, "ftl.map_cache.flush_find", FlushFind::Links, &why)
            }
            f => Ok(f.unwrap_or(if d.dirty_links { FlushFind::Links } else { FlushFind::Scan })),
        }
    }

    /// Where updates go; `ctp` needs a CTP (`ctp_pages` > 0: a two-level scheme whose CMT
    /// leaves it room).
    fn update_target(&self, file: &str, kind: MappingKind, ctp_pages: u64) -> Result<UpdateTarget> {
        match self.update_target {
            Some(UpdateTarget::Ctp) if ctp_pages == 0 => {
                let why = format!("{kind:?} has no CTP: updates can only go to the CMT");
                fail(file, "ftl.map_cache.update_target", UpdateTarget::Ctp, &why)
            }
            t => Ok(t.unwrap_or(UpdateTarget::Cmt)),
        }
    }

    /// The TP nodes' own keys, (compressed entries, prefetch), with the scheme's defaults;
    /// schemes without TP nodes reject them, and those with reject the block-cache keys TP
    /// nodes have no use for. `e`: entries per translation page.
    fn tp_node_keys(&self, file: &str, kind: MappingKind, d: &SchemeDefaults, e: u32) -> Result<(bool, bool)> {
        let Some(t) = &d.tp_nodes else {
            let why = &format!("applies to ftl.mapping = \"tpftl\" only, not {kind:?}");
            if let Some(c) = self.compressed_entries {
                return fail(file, "ftl.map_cache.compressed_entries", c, why);
            }
            if let Some(p) = self.prefetch {
                return fail(file, "ftl.map_cache.prefetch", p, why);
            }
            return Ok((false, false));
        };
        let why = "TPFTL's TP nodes are fully associative single entries under LRU: drop the key";
        if let Some(b) = self.block_entries.filter(|&b| b != 1) {
            return fail(file, "ftl.map_cache.block_entries", b, why);
        }
        if let Some(w) = self.ways.filter(|&w| w != 0) {
            return fail(file, "ftl.map_cache.ways", w, why);
        }
        if let Some(r) = self.replacement.filter(|&r| r != Replacement::Lru) {
            return fail(file, "ftl.map_cache.replacement", r, why);
        }
        let compressed = self.compressed_entries.unwrap_or(t.compressed_entries);
        if compressed && e as u64 > 1 << (8 * t.offset_bytes) {
            let why = format!("a {}-byte offset cannot address the {e} entries of a page", t.offset_bytes);
            return fail(file, "ftl.map_cache.compressed_entries", true, &why);
        }
        Ok((compressed, self.prefetch.unwrap_or(t.prefetch)))
    }

    /// The two levels' sizes: CMT blocks of `block_bytes`, and whole translation pages of
    /// CTP (0 for one-level schemes, and for a two-level scheme whose `cmt_bytes` is all of
    /// `ram_bytes`: its second level removed, FMMU's CTP ablation).
    fn levels(
        &self,
        file: &str,
        kind: MappingKind,
        d: &SchemeDefaults,
        page_bytes: u32,
        block_bytes: u64,
    ) -> Result<(u64, u64)> {
        let ram = self.ram_bytes.unwrap_or(DEFAULT_RAM_BYTES);
        let cmt_bytes = match (d.cmt_bytes, self.cmt_bytes) {
            (None, None) => ram,
            (None, Some(c)) => {
                return fail(file, "ftl.map_cache.cmt_bytes", c, &format!("{kind:?} has one level: drop the key"))
            }
            (Some(0), None) => ram.saturating_sub(2 * page_bytes as u64),
            (Some(c), None) => c.min(ram),
            (Some(_), Some(c)) => c,
        };
        if cmt_bytes > ram {
            return fail(
                file,
                "ftl.map_cache.cmt_bytes",
                cmt_bytes,
                &format!("exceeds ftl.map_cache.ram_bytes ({ram})"),
            );
        }
        let cmt_blocks = cmt_bytes / block_bytes;
        let ctp_pages = if d.cmt_bytes.is_some() { (ram - cmt_bytes) / page_bytes as u64 } else { 0 };
        if cmt_blocks == 0 || cmt_blocks > u32::MAX as u64 / 2 {
            return fail(
                file,
                "ftl.map_cache.ram_bytes",
                ram,
                &format!("gives {cmt_blocks} CMT blocks of {block_bytes} bytes"),
            );
        }
        if d.cmt_bytes.is_some() && ctp_pages == 0 && cmt_bytes < ram {
            return fail(
                file,
                "ftl.map_cache.cmt_bytes",
                cmt_bytes,
                "leaves no room for one translation page in the CTP (all of ram_bytes: one level, no CTP)",
            );
        }
        Ok((cmt_blocks, ctp_pages))
    }

    /// Whether any key is set (a full page map rejects a map cache section).
    pub fn is_set(&self) -> bool {
        *self != MapCacheConfig::default()
    }
}

/// The error for `key = value`, whatever the caller returns.
fn fail<T: std::fmt::Debug, R>(file: &str, key: &str, value: T, why: &str) -> Result<R> {
    Err(Error::config(file, 0, key, &format!("{key} = {value:?}: {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's sizes (docs/techniques.md §12): 6-byte entries on flash fill an 8 KiB page
    /// with ⌊8192 / 6⌋ = 1,365 entries (2 bytes unused), and 9-byte cached entries put
    /// ⌊2 MiB / 9⌋ = 233,016 entries in a 2 MiB CMT. By default a cached entry is the
    /// entry plus a 4-byte tag: 2 MiB / 10 = 209,715.
    #[test]
    fn mqsim_entry_sizes_need_not_divide_the_page() {
        let mut c = MapCacheConfig { ram_bytes: Some(2 << 20), entry_bytes: Some(6), ..MapCacheConfig::default() };
        let p = c.resolve("t", MappingKind::Dftl, 8192).expect("6-byte entries resolve");
        assert_eq!((p.entries_per_tp, p.cmt_blocks), (1365, 209_715));
        c.cmt_entry_bytes = Some(9);
        let p = c.resolve("t", MappingKind::Dftl, 8192).expect("9-byte CMT entries resolve");
        assert_eq!((p.entries_per_tp, p.cmt_blocks), (1365, 233_016));
        c.block_entries = Some(15);
        assert!(c.resolve("t", MappingKind::Dftl, 8192).is_err(), "a CMT entry size needs single entries");
    }

    /// A dirty-list victim rule is FMMU's: DFTL, CDFTL and TPFTL have no DTL and reject
    /// `flush_victim`, naming it. Updates default to the CMT for every scheme; `ctp` needs a
    /// CTP (CDFTL, FMMU), and a one-level scheme rejects it.
    #[test]
    fn schemes_without_a_dirty_list_reject_flush_victim_and_one_level_rejects_ctp_updates() {
        let victim = MapCacheConfig { flush_victim: Some(FlushVictim::Greedy), ..MapCacheConfig::default() };
        for kind in [MappingKind::Dftl, MappingKind::Cdftl, MappingKind::Tpftl] {
            let e = victim.resolve("t", kind, 4096).unwrap_err().to_string();
            assert!(e.contains("ftl.map_cache.flush_victim"), "{kind:?}: {e}");
        }
        let p = victim.resolve("t", MappingKind::Fmmu, 4096).expect("FMMU has a DTL");
        assert_eq!(p.flush_victim, FlushVictim::Greedy);
        for kind in [MappingKind::Dftl, MappingKind::Cdftl, MappingKind::Tpftl, MappingKind::Fmmu] {
            let p = MapCacheConfig::default().resolve("t", kind, 4096).expect("defaults resolve");
            assert_eq!(p.update_target, UpdateTarget::Cmt, "{kind:?}");
        }
        let ctp = MapCacheConfig { update_target: Some(UpdateTarget::Ctp), ..MapCacheConfig::default() };
        for kind in [MappingKind::Cdftl, MappingKind::Fmmu] {
            assert_eq!(ctp.resolve("t", kind, 4096).expect("two levels").update_target, UpdateTarget::Ctp);
        }
        for kind in [MappingKind::Dftl, MappingKind::Tpftl] {
            let e = ctp.resolve("t", kind, 4096).unwrap_err().to_string();
            assert!(e.contains("ftl.map_cache.update_target"), "{kind:?}: {e}");
        }
    }

    /// FMMU's ablations: `flush_find = "scan"` keeps its DTL but tests every CMT block;
    /// the schemes without a DTL scan already and reject `links`. A CMT of all the RAM
    /// removes the CTP: 1,114,112 B / (16 × 4 + 4) B = 16,384 blocks, as DFTL's one level;
    /// a CMT leaving less than a page for the CTP is still an error, and so are CTP updates
    /// with no CTP.
    #[test]
    fn fmmu_without_its_links_or_its_ctp() {
        let scan = MapCacheConfig { flush_find: Some(FlushFind::Scan), ..MapCacheConfig::default() };
        let p = scan.resolve("t", MappingKind::Fmmu, 16384).expect("FMMU may scan");
        assert_eq!((p.dirty_links, p.flush_find), (true, FlushFind::Scan));
        let fmmu = MapCacheConfig::default().resolve("t", MappingKind::Fmmu, 16384).unwrap();
        assert_eq!((fmmu.flush_find, fmmu.ctp_pages), (FlushFind::Links, 64));
        let links = MapCacheConfig { flush_find: Some(FlushFind::Links), ..MapCacheConfig::default() };
        for kind in [MappingKind::Dftl, MappingKind::Cdftl, MappingKind::Tpftl] {
            assert_eq!(MapCacheConfig::default().resolve("t", kind, 16384).unwrap().flush_find, FlushFind::Scan);
            let e = links.resolve("t", kind, 16384).unwrap_err().to_string();
            assert!(e.contains("ftl.map_cache.flush_find"), "{kind:?}: {e}");
        }
        let ram = DEFAULT_RAM_BYTES;
        let one = MapCacheConfig { cmt_bytes: Some(ram), ..MapCacheConfig::default() };
        let p = one.resolve("t", MappingKind::Fmmu, 16384).expect("one level");
        assert_eq!((p.cmt_blocks, p.ctp_pages), (16_384, 0));
        let short = MapCacheConfig { cmt_bytes: Some(ram - 100), ..MapCacheConfig::default() };
        assert!(short.resolve("t", MappingKind::Fmmu, 16384).unwrap_err().to_string().contains("cmt_bytes"));
        let ctp = MapCacheConfig { update_target: Some(UpdateTarget::Ctp), ..one };
        assert!(ctp.resolve("t", MappingKind::Fmmu, 16384).unwrap_err().to_string().contains("update_target"));
    }
}
