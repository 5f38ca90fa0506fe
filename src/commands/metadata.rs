//! `kseg metadata`: the image the metadata log replays to, and, on a log
//! dir, the partition directories that should not be on this broker.

use std::path::Path;

use kseg::inspect::cluster::metadata::load::{LoadedImage, find_metadata_partition, load_image};
use kseg::inspect::cluster::metadata::stray::{StrayReport, find_stray_replicas};
use kseg::render::metadata::{to_json, write_strays_text, write_text};

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

/// Runs `kseg metadata`.
pub fn run(args: &MetadataArgs) -> anyhow::Result<ExitCode> {
    let loaded = load_image(&args.path, args.at_offset)?;
    let strays = strays_of(&args.path, &loaded)?;
    for w in &loaded.warnings {
        eprintln!("kseg: {w}");
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        use std::io::Write as _;
        writeln!(out, "{}", to_json(&loaded, strays.as_ref()))?;
    } else {
        write_text(&mut out, &loaded)?;
        if let Some(s) = &strays {
            write_strays_text(&mut out, &args.path.display().to_string(), s)?;
        }
    }
    let damaged = !loaded.warnings.is_empty();
    Ok(if damaged {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
