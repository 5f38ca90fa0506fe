//! `.index` and `.timeindex` dumps, with kafka-dump-log's sanity check
//! and its cross-check against the segment's `.log`.

use std::path::Path;

use kseg::format::offset_index::OffsetIndex;
use kseg::format::time_index::TimeIndex;
use kseg::inspect::index::check::{check_offset_index, check_time_index};
use kseg::logdir::file_name::segment_file_name;
use kseg::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use kseg::logdir::{CachePolicy, MappedFile};

use super::{Printer, absolute};
use crate::cli::DumpArgs;
use crate::exit_code::ExitCode;

fn sibling_log(path: &Path, base: i64) -> Option<MappedFile> {
    let log = path.with_file_name(segment_file_name(base, "log"));
    log.is_file()
        .then(|| MappedFile::open(&log, CachePolicy::Restore).ok())
        .flatten()
}

fn report_preallocation(path: &Path, live: usize, slots: usize, entry_size: usize) {
    if live < slots {
        eprintln!(
            "kseg: {}: {live} entries; the other {} slots ({} bytes) are preallocated zeros, as in an active segment (Kafka trims them when the segment rolls or closes)",
            path.display(),
            slots - live,
            (slots - live) * entry_size
        );
    }
}

pub(super) fn dump_offset_index(
    path: &Path,
    named_base: Option<i64>,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let base = named_base.unwrap_or(0);
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let index = OffsetIndex::new(&bytes, base);
    let mut code = match print_offset_index(path, &absolute(path), &index, args, printer)? {
        Ok(code) => code,
        Err(done) => return Ok(done),
    };
    if let Some(log) = named_base.and_then(|base| sibling_log(path, base)) {
        let mismatches = check_offset_index(&index, log.bytes());
        if !mismatches.is_empty() {
            eprintln!("Mismatches in :{}", absolute(path));
            for m in &mismatches {
                eprintln!(
                    "  Index offset: {}, log offset: {}",
                    m.index_offset, m.log_offset
                );
            }
            code = ExitCode::Findings;
        }
    }
    Ok(code)
}

/// Prints an offset index's entries as kafka-dump-log does, `shown` (and
/// `abs`, its absolute form in Kafka's messages) naming it; `Err` when its
/// dump ends there (empty, or the sanity check alone was asked for).
pub(super) fn print_offset_index(
    shown: &Path,
    abs: &str,
    index: &OffsetIndex,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<Result<ExitCode, ExitCode>> {
    if index.kafka_entries() == 0 {
        printer.note("empty", &format!("{} is empty.", shown.display()))?;
        return Ok(Err(ExitCode::Ok));
    }
    let sanity = index.sanity_check().map_err(|e| e.kafka_message(abs));
    let code = match index_preamble(printer, shown, args, sanity, index.size_error())? {
        Ok(code) => code,
        Err(done) => return Ok(Err(done)),
    };
    if !args.verify_index_only {
        for (slot, entry) in index.entries().enumerate() {
            printer.index_entry(&entry, slot)?;
        }
    }
    report_preallocation(shown, index.live_entries(), index.kafka_entries(), 8);
    Ok(Ok(code))
}

/// Prints a time index's entries as kafka-dump-log does, as
/// [`print_offset_index`] does an offset index's.
pub(super) fn print_time_index(
    shown: &Path,
    abs: &str,
    index: &TimeIndex,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<Result<ExitCode, ExitCode>> {
    let sanity = index.sanity_check().map_err(|e| e.kafka_message(abs));
    let code = match index_preamble(printer, shown, args, sanity, index.size_error())? {
        Ok(code) => code,
        Err(done) => return Ok(Err(done)),
    };
    if !args.verify_index_only {
        for (slot, entry) in index.entries().enumerate() {
            printer.time_index_entry(&entry, slot)?;
        }
    }
    report_preallocation(shown, index.live_entries(), index.kafka_entries(), 12);
    Ok(Ok(code))
}

/// What both index dumps do first: with `--index-sanity-check`, Kafka's
/// check and nothing else (`Err` ends this file's dump); otherwise a warning
/// when the size is not a whole number of entries.
fn index_preamble(
    printer: &mut Printer<'_>,
    path: &Path,
    args: &DumpArgs,
    sanity: Result<(), String>,
    size_error: Option<kseg::format::FormatError>,
) -> anyhow::Result<Result<ExitCode, ExitCode>> {
    if args.index_sanity_check {
        return Ok(Err(sanity_result(printer, path, sanity)?));
    }
    if let Some(err) = size_error {
        eprintln!("kseg: {}: {err}", path.display());
        return Ok(Ok(ExitCode::Findings));
    }
    Ok(Ok(ExitCode::Ok))
}

fn sanity_result(
    printer: &mut Printer<'_>,
    path: &Path,
    result: Result<(), String>,
) -> anyhow::Result<ExitCode> {
    match result {
        Ok(()) => {
            printer.note(
                "sanityCheck",
                &format!("{} passed sanity check.", path.display()),
            )?;
            Ok(ExitCode::Ok)
        }
        Err(message) => {
            eprintln!("kseg: {message}");
            Ok(ExitCode::Findings)
        }
    }
}

pub(super) fn dump_time_index(
    path: &Path,
    named_base: Option<i64>,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let base = named_base.unwrap_or(0);
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let index = TimeIndex::new(&bytes, base);
    let code = match print_time_index(path, &absolute(path), &index, args, printer)? {
        Ok(code) => code,
        Err(done) => return Ok(done),
    };
    let offset_index_path = path.with_file_name(segment_file_name(base, "index"));
    let (Some(log), Ok(offset_bytes)) = (
        named_base.and_then(|base| sibling_log(path, base)),
        read_small(&offset_index_path, INDEX_READ_LIMIT),
    ) else {
        return Ok(code);
    };
    let findings = check_time_index(&index, &OffsetIndex::new(&offset_bytes, base), log.bytes());
    let abs = absolute(path);
    if !findings.timestamp_mismatches.is_empty() {
        eprintln!("Found timestamp mismatch in :{abs}");
        for (index_ts, log_ts) in &findings.timestamp_mismatches {
            eprintln!("  Index timestamp: {index_ts}, log timestamp: {log_ts}");
        }
    }
    if !findings.out_of_order.is_empty() {
        eprintln!("Found out of order timestamp in :{abs}");
        for (index_ts, prev) in &findings.out_of_order {
            eprintln!("  Index timestamp: {index_ts}, Previously indexed timestamp: {prev}");
        }
    }
    if !findings.offsets_not_found.is_empty() {
        eprintln!("The following indexed offsets are not found in the log.");
        for (offset, found) in &findings.offsets_not_found {
            eprintln!("Indexed offset: {offset}, found log offset: {found}");
        }
    }
    Ok(if findings.is_clean() {
        code
    } else {
        ExitCode::Findings
    })
}
