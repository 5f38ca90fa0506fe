//! `kseg metadata`: the image the metadata log replays to, and, on a log
//! dir, the partition directories that should not be on this broker.

use std::path::Path;

use kseg::inspect::cluster::config::context::MetadataOrigin;
use kseg::inspect::cluster::metadata::health::assess;
use kseg::inspect::cluster::metadata::load::{
    ImageRequest, LoadedImage, Start, batch_at_time, find_metadata_partition, load_image,
    load_image_with_progress,
};
use kseg::inspect::cluster::metadata::stray::{StrayReport, find_stray_replicas};
use kseg::render::metadata::{stray_json, to_json, write_strays_text, write_text};
use kseg::render::time::utc;

use crate::cli::MetadataArgs;
use crate::exit_code::ExitCode;

/// The stray replicas of `path` when it is a log dir holding the metadata
/// partition (not the partition itself, nor a snapshot file).
pub fn strays_of(path: &Path, loaded: &LoadedImage) -> anyhow::Result<Option<StrayReport>> {
    if find_metadata_partition(path).is_none() {
        return Ok(None);
    }
    Ok(Some(find_stray_replicas(path, &loaded.replayed.image)?))
}

/// The bytes of the `.log` and `.checkpoint` files the image may be read
/// from, for the progress bar.
fn bytes_to_read(path: &Path) -> u64 {
    let dir = find_metadata_partition(path).unwrap_or_else(|| path.to_path_buf());
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return std::fs::metadata(path).map_or(0, |m| m.len());
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".log") || name.ends_with(".checkpoint")
        })
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// The offset `--at-time` means: the last offset of the last batch
/// appended at or before `time`, said on stderr.
fn offset_at_time(path: &Path, time: i64) -> anyhow::Result<i64> {
    if path.is_file() {
        anyhow::bail!(
            "{}: --at-time needs the metadata partition directory, not a snapshot file",
            path.display()
        );
    }
    let Some(batch) = batch_at_time(path, time)? else {
        anyhow::bail!(
            "{}: --at-time {}: the metadata log's first batch was appended after it",
            path.display(),
            utc(time)
        );
    };
    eprintln!(
        "kseg: --at-time {}: the image as of offset {}, the end of the last batch appended at or before it ({})",
        utc(time),
        batch.last_offset,
        utc(batch.timestamp)
    );
    Ok(batch.last_offset)
}

/// Runs `kseg metadata`.
pub fn run(args: &MetadataArgs) -> anyhow::Result<ExitCode> {
    let bar = super::progress_bar(bytes_to_read(&args.path), args.json);
    let at_offset = match args.at_time {
        Some(time) => Some(offset_at_time(&args.path, time)?),
        None => args.at_offset,
    };
    let request = ImageRequest {
        at_offset,
        snapshot: args.snapshot.clone(),
        start: Start::Newest,
    };
    let loaded = load_image_with_progress(&args.path, &request, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    let mut strays = strays_of(&args.path, &loaded)?;
    // The broker judges its replicas against the image it has caught up
    // to, never an earlier one.
    if strays.is_some() && at_offset.is_some() {
        strays = None;
        eprintln!(
            "kseg: stray replicas are not judged at --at-offset or --at-time: the broker judges them against the latest image"
        );
    }
    for w in loaded.warnings.iter().chain(&loaded.notes) {
        eprintln!("kseg: {w}");
    }
    let filter = args.filter();
    let report = assess(&loaded.replayed.image, &filter);
    for t in filter
        .topics
        .iter()
        .filter(|t| loaded.replayed.image.topics.by_name(t).is_none())
    {
        eprintln!("kseg: topic {t}: the image has no such topic");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        use std::io::Write as _;
        writeln!(
            out,
            "{}",
            to_json(&loaded, &report, &filter, strays.as_ref())
        )?;
    } else {
        write_text(&mut out, &loaded, &report, &filter)?;
        if let Some(s) = &strays {
            write_strays_text(&mut out, &args.path.display().to_string(), s)?;
        }
    }
    let damaged = !loaded.warnings.is_empty();
    let stray = strays
        .as_ref()
        .is_some_and(|s| s.strays().any(|(_, r)| r.is_finding()));
    Ok(if damaged || stray {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}

/// `kseg verify`'s log-dir finding: the stray replicas of each log dir
/// among `paths` that holds `__cluster_metadata-0`, printed as text lines
/// or JSON objects (`"type": "strayReplica"`). Returns whether any is one
/// the broker's next start acts on (moves aside, or stops at). The image
/// `known` already holds (replayed for the configs) is used for its own
/// metadata log; any other is replayed here. A metadata log that does not
/// replay is said on stderr and checks nothing (verify reports its damage
/// as a partition).
pub fn verify_strays(
    paths: &[std::path::PathBuf],
    json: bool,
    known: Option<&MetadataOrigin>,
) -> anyhow::Result<bool> {
    use std::io::Write as _;
    let mut found = false;
    let mut out = std::io::stdout().lock();
    for (path, dir) in paths
        .iter()
        .filter_map(|p| Some((p, find_metadata_partition(p)?)))
    {
        let (image, offset) = match known.filter(|k| k.path == dir) {
            Some(k) => (k.image.clone(), k.offset),
            None => match load_image(path, None) {
                Ok(l) => (std::sync::Arc::new(l.replayed.image), l.offset),
                Err(e) => {
                    eprintln!("kseg: {e}: stray replicas are not checked");
                    continue;
                }
            },
        };
        let strays = find_stray_replicas(path, &image)?;
        for (r, reason) in strays.strays() {
            found |= reason.is_finding();
            if json {
                let mut v = stray_json(r, reason);
                v["type"] = "strayReplica".into();
                v["nodeId"] = strays.node_id.into();
                v["metadataOffset"] = offset.into();
                writeln!(out, "{v}")?;
            } else {
                writeln!(
                    out,
                    "{}: {} (metadata log at offset {offset}): {reason}",
                    r.dir.display(),
                    reason.label(),
                )?;
            }
        }
    }
    Ok(found)
}
