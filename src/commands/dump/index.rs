//! `.index` and `.timeindex` dumps, with kafka-dump-log's sanity check
//! and its cross-check against the segment's `.log`.

use std::path::Path;

use kseg::format::offset_index::OffsetIndex;
use kseg::format::time_index::TimeIndex;
use kseg::inspect::index::check::{check_offset_index, check_time_index};
use kseg::logdir::file_name::segment_file_name;
use kseg::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use kseg::logdir::{CachePolicy, MappedFile};
use kseg::render::dump_index::{IndexDumpOptions, print_offset_index, print_time_index};

use super::{Printer, absolute};
use crate::cli::DumpArgs;
use crate::exit_code::ExitCode;

fn sibling_log(path: &Path, base: i64) -> Option<MappedFile> {
    let log = path.with_file_name(segment_file_name(base, "log"));
    MappedFile::open(&log, CachePolicy::Restore)
        .ok()
        .filter(|_| log.is_file())
}

/// What `args` asks of an index dump.
pub(super) fn index_options(args: &DumpArgs) -> IndexDumpOptions {
    IndexDumpOptions {
        sanity_check_only: args.index_sanity_check,
        skip_entries: args.verify_index_only,
    }
}

pub(super) fn dump_offset_index(
    path: &Path,
    named_base: Option<i64>,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let index = OffsetIndex::new(&bytes, named_base.unwrap_or(0));
    let printed = print_offset_index(
        (printer, &mut std::io::stderr()),
        (path, &absolute(path)),
        &index,
        index_options(args),
    )?;
    let (false, Some(log)) = (printed.ended, named_base.and_then(|b| sibling_log(path, b))) else {
        return Ok(ExitCode::findings_if(printed.findings));
    };
    let mismatches = check_offset_index(&index, log.bytes());
    if mismatches.is_empty() {
        return Ok(ExitCode::findings_if(printed.findings));
    }
    eprintln!("Mismatches in :{}", absolute(path));
    for m in &mismatches {
        eprintln!(
            "  Index offset: {}, log offset: {}",
            m.index_offset, m.log_offset
        );
    }
    Ok(ExitCode::Findings)
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
    let printed = print_time_index(
        (printer, &mut std::io::stderr()),
        (path, &absolute(path)),
        &index,
        index_options(args),
    )?;
    let code = ExitCode::findings_if(printed.findings);
    let offset_index_path = path.with_file_name(segment_file_name(base, "index"));
    let (false, Some(log), Ok(offset_bytes)) = (
        printed.ended,
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
