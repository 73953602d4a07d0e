//! Validation helpers and unit conversions shared by every layer's config section.
//!
//! A leaf module: it imports nothing of the crate but the error type, so each layer checks
//! its own section (`nand::config`, `ftl::config`, ...) without importing `config`,
//! which composes the sections and imports them all.

use std::fmt::Debug;

use crate::error::{Error, Result};

/// Largest time a config key may hold, in the key's unit (µs or ns; 1e9 µs is 1000 s), so
/// sums of picoseconds cannot overflow.
const TIME_MAX: f64 = 1e9;

/// The error for a value a section's `validate` rejects: `key = value: why`. The line is
/// filled in by [`Config::from_toml_str`], which knows the text.
pub fn reject<T: Debug>(file: &str, key: &str, value: T, why: &str) -> Result<()> {
    Err(Error::config(file, 0, key, &format!("{key} = {value:?}: {why}")))
}

/// Each `(key, count)` is at least 1; the first that is not is the error.
pub fn require_nonzero(file: &str, counts: &[(&str, u32)]) -> Result<()> {
    match counts.iter().find(|(_, v)| *v == 0) {
        Some(&(key, v)) => reject(file, key, v, "must be at least 1"),
        None => Ok(()),
    }
}

/// Each `(key, count, max)` has count ≤ max.
pub fn require_at_most(file: &str, counts: &[(&str, u32, u32)]) -> Result<()> {
    match counts.iter().find(|(_, v, max)| v > max) {
        Some(&(key, v, max)) => reject(file, key, v, &format!("at most {max}")),
        None => Ok(()),
    }
}

/// Each `(key, time)` is finite, non-negative and at most [`TIME_MAX`].
pub fn require_times(file: &str, times: &[(&str, f64)]) -> Result<()> {
    match times.iter().find(|(_, t)| !(t.is_finite() && (0.0..=TIME_MAX).contains(t))) {
        Some(&(key, t)) => reject(file, key, t, &format!("must be between 0 and {TIME_MAX:e}")),
        None => Ok(()),
    }
}

/// Each `(key, value, lo, hi)` is finite and in [lo, hi]: rates and bandwidths whose
/// transfer times fit in picoseconds.
pub fn require_range(file: &str, values: &[(&str, f64, f64, f64)]) -> Result<()> {
    match values.iter().find(|(_, v, lo, hi)| !(v.is_finite() && (*lo..=*hi).contains(v))) {
        Some(&(key, v, lo, hi)) => reject(file, key, v, &format!("must be between {lo} and {hi:e}")),
        None => Ok(()),
    }
}

/// Nanoseconds (as written in a config) to integer picoseconds.
pub fn ns_to_ps(ns: f64) -> u64 {
    (ns * 1000.0).round() as u64
}

/// Microseconds (as written in a config) to integer picoseconds.
pub fn us_to_ps(us: f64) -> u64 {
    (us * 1_000_000.0).round() as u64
}
