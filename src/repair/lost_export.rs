//! `kseg diverge --export`: a follower's lost batches copied verbatim into
//! a new partition directory (segments rolled where relative offsets would
//! overflow or at 1 GiB, indexes built as recovery builds them,
//! `partition.metadata`), which `kseg dump` reads and a producer can replay
//! from. Writes only into a directory it creates.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::error::{AtStep, RepairError};
use crate::format::FileBatch;
use crate::inspect::diverge::ReplicaBatch;
use crate::inspect::index::build::IndexBuilder;
use crate::logdir::file_name::segment_file_name;

/// Largest segment written.
const SEGMENT_BYTES: u64 = 1 << 30;

/// One segment being written.
struct Output {
    base: i64,
    size: u64,
    log: BufWriter<File>,
    index: IndexBuilder,
}

impl Output {
    fn open(dir: &Path, base: i64) -> Result<Self, RepairError> {
        let path = dir.join(segment_file_name(base, "log"));
        let file = File::create_new(&path).at("creating", &path)?;
        Ok(Self {
            base,
            size: 0,
            log: BufWriter::new(file),
            index: IndexBuilder::new(base, 4096, false),
        })
    }

    fn fits(&self, b: &ReplicaBatch) -> bool {
        self.size + b.size <= SEGMENT_BYTES
            && b.last_offset.saturating_sub(self.base) <= i64::from(i32::MAX)
    }

    fn close(self, dir: &Path) -> Result<(), RepairError> {
        let log_path = dir.join(segment_file_name(self.base, "log"));
        let file = self
            .log
            .into_inner()
            .map_err(|e| e.into_error())
            .at("writing", &log_path)?;
        file.sync_all().at("syncing", &log_path)?;
        let build = self.index.finish();
        for (ext, bytes) in [
            ("index", build.offset_index_bytes(self.base)),
            ("timeindex", build.time_index_bytes(self.base)),
        ] {
            let path = dir.join(segment_file_name(self.base, ext));
            fs::write(&path, bytes).at("writing", &path)?;
        }
        Ok(())
    }
}

/// Copies `batches` (read from the segments of `source`) into the new
/// directory `dir` (named like the partition), with `partition.metadata`
/// holding `topic_id` when known. Returns the segment files written.
pub fn export_batches(
    source: &Path,
    batches: &[ReplicaBatch],
    dir: &Path,
    topic_id: Option<&str>,
) -> Result<Vec<PathBuf>, RepairError> {
    if let Some(parent) = dir.parent() {
        fs::create_dir_all(parent).at("creating", parent)?;
    }
    fs::create_dir(dir).at("creating", dir)?;
    let mut written = Vec::new();
    let mut out: Option<Output> = None;
    let mut bytes = Vec::new();
    let mut open_source: Option<(i64, File)> = None;
    for b in batches {
        if open_source
            .as_ref()
            .is_none_or(|(base, _)| *base != b.segment)
        {
            let path = source.join(segment_file_name(b.segment, "log"));
            open_source = Some((b.segment, File::open(&path).at("opening", &path)?));
        }
        let Some((_, file)) = &open_source else {
            continue;
        };
        bytes.resize(b.size as usize, 0);
        let src = source.join(segment_file_name(b.segment, "log"));
        file.read_exact_at(&mut bytes, b.position)
            .at("reading", &src)?;
        if out.as_ref().is_some_and(|o| !o.fits(b)) {
            if let Some(o) = out.take() {
                o.close(dir)?;
            }
        }
        let o = match &mut out {
            Some(o) => o,
            None => {
                written.push(dir.join(segment_file_name(b.base_offset, "log")));
                out.insert(Output::open(dir, b.base_offset)?)
            }
        };
        o.index.push(&FileBatch {
            position: o.size,
            bytes: &bytes,
            magic: b.magic,
        });
        let path = dir.join(segment_file_name(o.base, "log"));
        o.log.write_all(&bytes).at("writing", &path)?;
        o.size += b.size;
    }
    if let Some(o) = out {
        o.close(dir)?;
    }
    if let Some(id) = topic_id {
        let path = dir.join("partition.metadata");
        fs::write(&path, format!("version: 0\ntopic_id: {id}")).at("writing", &path)?;
    }
    Ok(written)
}
