//! `kseg verify --remote`: a remote segment checked where it lies, in one
//! streamed pass (CRC of every batch, the audit local segments get), and
//! its offset and time indexes checked against it. Unlike a local segment,
//! a remote one was copied whole once the broker rolled it: any byte that
//! does not frame as a valid batch is damage, never a torn tail.

use std::ops::ControlFlow;

use crate::format::codec::DEFAULT_DECOMPRESS_LIMIT;
use crate::inspect::index::build::{DEFAULT_INDEX_INTERVAL_BYTES, IndexBuild, IndexBuilder};
use crate::inspect::index::health::IndexHealth;
use crate::inspect::recovery::batch_audit::{BatchAudit, BatchAuditor};
use crate::inspect::recovery::segment::{
    EntryMatcher, offset_index_entries, time_index_bytes_health,
};
use crate::logdir::LogDirError;
use crate::logdir::chunked::walk_stream;
use crate::objstore::aiven_crypto::KeyRing;
use crate::objstore::segment::{IndexKind, name_base_offset};
use crate::objstore::{ObjectClient, RemoteSegmentObject};

/// One remote segment, checked.
#[derive(Debug, Clone)]
pub struct RemoteSegmentCheck {
    /// The `.log` object's URL.
    pub url: String,
    /// The layout that stores it.
    pub layout: &'static str,
    /// The base offset its name gives.
    pub base_offset: Option<i64>,
    /// The segment's size in bytes.
    pub size: u64,
    /// The walk, with CRCs checked.
    pub build: IndexBuild,
    /// What the batch audit found.
    pub audit: BatchAudit,
    /// State of the offset index.
    pub offset_index: IndexHealth,
    /// State of the time index.
    pub time_index: IndexHealth,
    /// Why the segment (or an index) could not be read, when it could not.
    pub unreadable: Option<String>,
}

impl RemoteSegmentCheck {
    /// The check of the segment at `log` whose objects do not open.
    fn unreadable(client: &ObjectClient, log: &object_store::path::Path, why: String) -> Self {
        Self {
            url: client.url(log),
            layout: "unknown",
            base_offset: name_base_offset(log),
            size: 0,
            build: IndexBuild::default(),
            audit: BatchAudit::default(),
            offset_index: IndexHealth::Missing,
            time_index: IndexHealth::Missing,
            unreadable: Some(why),
        }
    }

    /// Every problem, in words; empty when the segment is sound.
    pub fn findings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(why) = &self.unreadable {
            out.push(format!("cannot be read: {why}"));
            return out;
        }
        if let Some(stop) = &self.build.stop {
            out.push(format!(
                "the data stops being valid batches at byte {} of {}: {}",
                stop.position(),
                self.size,
                stop.describe()
            ));
        }
        if let (Some(named), Some(first)) = (self.base_offset, self.audit.first_offset) {
            if named != first && self.build.batches > 0 {
                out.push(format!(
                    "named for base offset {named}, but its first batch starts at {first}"
                ));
            }
        }
        out.extend(self.audit.anomalies.iter().cloned());
        if self.audit.more_anomalies > 0 {
            out.push(format!("{} more anomalies", self.audit.more_anomalies));
        }
        for (name, health) in [
            ("offset index", &self.offset_index),
            ("time index", &self.time_index),
        ] {
            match health {
                IndexHealth::Ok => {}
                IndexHealth::Missing => out.push(format!("no {name}")),
                IndexHealth::EmptyWithData => out.push(format!("the {name} is empty")),
                IndexHealth::FailsSanityCheck(why) | IndexHealth::Inconsistent(why) => {
                    out.push(format!("{name}: {why}"))
                }
            }
        }
        out
    }
}

/// Reads one index of the segment, or says why it cannot.
fn index_bytes(
    client: &ObjectClient,
    segment: &RemoteSegmentObject,
    kind: IndexKind,
) -> Result<Option<(Vec<u8>, String)>, String> {
    segment.index(client, kind).map_err(|e| e.to_string())
}

/// Checks the remote segment `segment`; `deep` decodes every record too.
/// A segment that cannot be read is a check saying why, not an error.
pub fn check_remote_segment(
    client: &ObjectClient,
    segment: &RemoteSegmentObject,
    deep: bool,
) -> RemoteSegmentCheck {
    let base = segment.base_offset.unwrap_or(0);
    let mut check = RemoteSegmentCheck {
        url: client.url(&segment.log),
        layout: segment.layout_name(),
        base_offset: segment.base_offset,
        size: segment.size,
        build: IndexBuild::default(),
        audit: BatchAudit::default(),
        offset_index: IndexHealth::Missing,
        time_index: IndexHealth::Missing,
        unreadable: None,
    };
    let offsets = match index_bytes(client, segment, IndexKind::Offset) {
        Ok(Some((bytes, name))) => offset_index_entries(&bytes, base, &name),
        Ok(None) => Err(IndexHealth::Missing),
        Err(why) => {
            check.unreadable = Some(why);
            return check;
        }
    };
    let (mut matcher, index_problem) = match offsets {
        Ok(entries) => (Some(EntryMatcher::new(entries)), None),
        Err(health) => (None, Some(health)),
    };
    // The interval only decides which entries a rebuild writes, which this
    // check does not compare.
    let mut builder = IndexBuilder::counting(base, DEFAULT_INDEX_INTERVAL_BYTES, true);
    let mut auditor = BatchAuditor::new(deep);
    let mut auditing = true;
    let mut scratch = Vec::new();
    let walked = segment.reader(client).and_then(|reader| {
        walk_stream(reader, segment.size, |batch| {
            let summary = batch.summary(&mut scratch, DEFAULT_DECOMPRESS_LIMIT);
            if let (Ok(s), Some(m)) = (&summary, matcher.as_mut()) {
                m.batch(s.position, s.base_offset);
            }
            builder.push_summarized(batch, summary.as_ref().map_err(|e| *e));
            auditing = auditing && auditor.push(batch, summary.as_ref().ok());
            ControlFlow::Continue(())
        })
        .map_err(|e| LogDirError::io(std::path::Path::new(&check.url), e))
    });
    match walked {
        Ok(Some(err)) => builder.framing_ended(err),
        Ok(None) => {}
        Err(e) => {
            check.unreadable = Some(e.to_string());
            return check;
        }
    }
    check.build = builder.finish();
    check.audit = auditor.finish();
    check.offset_index =
        index_problem.unwrap_or_else(|| matcher.map_or(IndexHealth::Ok, |m| m.health()));
    check.time_index = match index_bytes(client, segment, IndexKind::Time) {
        Ok(Some((bytes, name))) => time_index_bytes_health(&bytes, base, &name, &check.build),
        Ok(None) => IndexHealth::Missing,
        Err(why) => {
            check.unreadable = Some(why);
            return check;
        }
    };
    check
}

/// Checks every remote segment (every `.log` object) under `prefix`, in
/// key order, handing each check to `each`; encrypted segments are read
/// with `keys`. Returns how many segments there were.
pub fn check_remote_prefix<E>(
    client: &ObjectClient,
    prefix: &object_store::path::Path,
    keys: &KeyRing,
    deep: bool,
    mut each: impl FnMut(RemoteSegmentCheck) -> Result<(), E>,
) -> Result<usize, E>
where
    E: From<LogDirError>,
{
    let logs: Vec<_> = client
        .list(prefix)?
        .into_iter()
        .filter(|o| o.location.as_ref().ends_with(".log"))
        .collect();
    for object in &logs {
        each(
            match RemoteSegmentObject::open(client, &object.location, keys) {
                Ok(segment) => check_remote_segment(client, &segment, deep),
                Err(e) => RemoteSegmentCheck::unreadable(client, &object.location, e.to_string()),
            },
        )?;
    }
    Ok(logs.len())
}
