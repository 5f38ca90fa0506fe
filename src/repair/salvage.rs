//! Cutting the damaged byte ranges a salvage found out of their segments,
//! keeping every batch before and after them. The segment's `.log` is
//! backed up and replaced atomically; its indexes, `.txnindex` and the
//! producer snapshots are then rebuilt by the recovery that follows.

use std::fs;

use super::backup::LazyBackup;
use super::error::{AtStep, RepairError};
use super::write::replace_file;
use crate::inspect::recovery::salvage::SegmentSalvage;

/// Cuts the segment's damaged ranges out of its `.log`; returns the bytes
/// cut. Refused when the file's size is no longer what the salvage read.
pub fn cut_damaged_ranges(
    segment: &SegmentSalvage,
    backup: &mut LazyBackup,
) -> Result<u64, RepairError> {
    if segment.damages.is_empty() {
        return Ok(0);
    }
    let path = &segment.file;
    let data = fs::read(path).at("reading", path)?;
    if data.len() as u64 != segment.size {
        return Err(RepairError::Refused(format!(
            "{} changed since it was read: {} bytes, not {}; nothing was cut (run again)",
            path.display(),
            data.len(),
            segment.size
        )));
    }
    let mut kept = Vec::with_capacity(data.len());
    let mut at = 0usize;
    for damage in &segment.damages {
        kept.extend_from_slice(data.get(at..damage.start as usize).unwrap_or_default());
        at = damage.end as usize;
    }
    kept.extend_from_slice(data.get(at..).unwrap_or_default());
    backup.save(path)?;
    replace_file(path, &kept)?;
    Ok((data.len() - kept.len()) as u64)
}
