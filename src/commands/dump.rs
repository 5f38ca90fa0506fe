//! `kseg dump FILE…`: every file of a partition directory, in
//! kafka-dump-log's line format or as NDJSON.

use std::io::{self, BufWriter, Read};
use std::path::Path;

use kseg::format::FileBatch;
use kseg::format::checkpoint::{parse_leader_epoch_checkpoint, parse_offset_checkpoint};
use kseg::format::offset_index::OffsetIndex;
use kseg::format::producer_snapshot::parse_producer_snapshot;
use kseg::format::properties::{parse_partition_metadata, parse_properties};
use kseg::format::record::parse_control_record;
use kseg::format::time_index::TimeIndex;
use kseg::format::txn_index::parse_txn_index;
use kseg::inspect::index_check::{check_offset_index, check_time_index};
use kseg::logdir::chunked::walk_batches;
use kseg::logdir::file_name::{
    FileKind, SNIFF_LEN, classify_by_suffix, classify_contents, parse_base_offset,
    parse_kraft_snapshot, segment_file_name, sniff,
};
use kseg::logdir::mapped::{INDEX_READ_LIMIT, read_small};
use kseg::logdir::{CachePolicy, LogDirError, MappedFile, PageCacheGuard};
use kseg::render::dump::RecordOptions;
use kseg::render::{ByteEncoding, DumpPrinter, OutputFormat};
use std::ops::ControlFlow;

use crate::cli::{DumpArgs, EncodingArg};
use crate::exit_code::ExitCode;

type Printer<'a> = DumpPrinter<BufWriter<io::StdoutLock<'a>>>;

/// Runs `kseg dump`.
pub fn run(args: &DumpArgs) -> anyhow::Result<ExitCode> {
    let format = if args.json {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let encoding = match args.encoding {
        EncodingArg::Utf8 => ByteEncoding::Utf8,
        EncodingArg::Hex => ByteEncoding::Hex,
        EncodingArg::Base64 => ByteEncoding::Base64,
    };
    let mut printer = DumpPrinter::new(BufWriter::new(io::stdout().lock()), format, encoding);
    let mut code = ExitCode::Ok;
    for path in args.paths.iter().chain(&args.files) {
        code = code.max(dump_file(path, args, &mut printer)?);
    }
    printer.flush()?;
    Ok(code)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// What kind a file is and which base offset its entries are relative to:
/// by its Kafka name, else by its suffix, else by its first bytes.
/// `Err` is the reason it cannot be dumped.
fn identify(path: &Path, given_base: Option<i64>) -> Result<(FileKind, Option<i64>), String> {
    if !path.exists() {
        return Err("does not exist".into());
    }
    if path.is_dir() {
        return Err("is a directory; dump takes files (verify, locate and retention-report take partition directories)".into());
    }
    let name = file_name(path);
    let mut kind = classify_contents(&name);
    if kind == FileKind::Unknown || kind == FileKind::Stray {
        kind = classify_by_suffix(&name);
    }
    if kind == FileKind::Unknown {
        let head = read_head(path).map_err(|e| e.to_string())?;
        kind = sniff(&head);
    }
    if kind == FileKind::Unknown {
        return Err(
            "not a file kind kseg can dump: neither its name nor its first bytes tell what it is"
                .into(),
        );
    }
    let named_base = parse_base_offset(&name).filter(|_| classify_contents(&name) == kind);
    Ok((kind, given_base.or(named_base)))
}

/// The first [`SNIFF_LEN`] bytes of a file.
fn read_head(path: &Path) -> Result<Vec<u8>, LogDirError> {
    let mut head = Vec::with_capacity(SNIFF_LEN);
    std::fs::File::open(path)
        .and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head))
        .map_err(|e| LogDirError::io(path, e))?;
    Ok(head)
}

/// Dumps one file; problems with the file itself are reported and turned
/// into an exit code, only output errors abort the run.
fn dump_file(path: &Path, args: &DumpArgs, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    let (kind, base) = match identify(path, args.base_offset) {
        Ok(found) => found,
        Err(why) => {
            eprintln!("kseg: {}: {why}; skipped", path.display());
            return Ok(ExitCode::Error);
        }
    };
    let name = file_name(path);
    printer.file(&path.display().to_string(), kind_name(kind))?;
    let unknown_base = |what: &str| {
        eprintln!(
            "kseg: {}: the file name carries no base offset; {what} (pass --base-offset N to give it)",
            path.display()
        );
    };
    let result = match kind {
        FileKind::Log => {
            let header = match base {
                Some(base) => format!("Log starting offset: {base}"),
                None => "Log starting offset: unknown (the file name carries no base offset; every batch carries its own offsets)".to_string(),
            };
            dump_log(path, &header, args, printer)
        }
        FileKind::KraftSnapshot => {
            let header = match parse_kraft_snapshot(&name) {
                Some((offset, epoch)) => format!("Snapshot end offset: {offset}, epoch: {epoch}"),
                None => "KRaft bootstrap snapshot".to_string(),
            };
            dump_log(path, &header, args, printer)
        }
        FileKind::OffsetIndex | FileKind::TimeIndex => {
            if base.is_none() {
                unknown_base(
                    "offsets are shown relative to the segment's base offset, and are not checked against a .log",
                );
            }
            if kind == FileKind::OffsetIndex {
                dump_offset_index(path, base, args, printer)
            } else {
                dump_time_index(path, base, args, printer)
            }
        }
        FileKind::TxnIndex => dump_txn_index(path, printer),
        FileKind::ProducerSnapshot => dump_snapshot(path, printer),
        _ => dump_text_file(path, kind, printer),
    };
    match result {
        Ok(code) => Ok(code),
        Err(err) if err.downcast_ref::<io::Error>().is_some() => Err(err),
        Err(err) => {
            eprintln!("kseg: {err:#}");
            Ok(ExitCode::Error)
        }
    }
}

fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Log => "log",
        FileKind::KraftSnapshot => "kraftSnapshot",
        FileKind::OffsetIndex => "offsetIndex",
        FileKind::TimeIndex => "timeIndex",
        FileKind::TxnIndex => "txnIndex",
        FileKind::ProducerSnapshot => "producerSnapshot",
        FileKind::LeaderEpochCheckpoint => "leaderEpochCheckpoint",
        FileKind::OffsetCheckpoint => "offsetCheckpoint",
        FileKind::PartitionMetadata => "partitionMetadata",
        FileKind::MetaProperties => "metaProperties",
        FileKind::CleanShutdown => "cleanShutdown",
        FileKind::Stray | FileKind::Unknown => "unknown",
    }
}

/// The state of one `.log` dump while its batches stream past.
struct LogDump<'p, 'w> {
    path: &'p Path,
    args: &'p DumpArgs,
    printer: &'p mut Printer<'w>,
    code: ExitCode,
    scratch: Vec<u8>,
    last_record_offset: Option<i64>,
    non_consecutive: Vec<(i64, i64)>,
    failed: Option<std::io::Error>,
}

impl LogDump<'_, '_> {
    /// Prints one batch (and its records when deep); false once `--max-bytes` is reached.
    fn batch(&mut self, batch: &FileBatch<'_>) -> std::io::Result<bool> {
        let args = self.args;
        if args
            .max_bytes
            .is_some_and(|max| batch.position + batch.size() > max)
        {
            return Ok(false);
        }
        let limit = args.max_decompressed_bytes;
        let summary = match batch.summary(&mut self.scratch, limit) {
            Ok(s) => s,
            Err(err) => {
                eprintln!("kseg: {}: {err}; skipping this batch", self.path.display());
                self.code = ExitCode::Findings;
                return Ok(true);
            }
        };
        let is_valid = batch.is_valid();
        self.printer.batch(&summary, is_valid)?;
        if !is_valid {
            self.code = ExitCode::Findings;
        }
        if !(args.deep_iteration || args.print_data_log || args.skip_record_metadata) {
            return Ok(true);
        }
        let opts = RecordOptions {
            print_data: args.print_data_log,
            skip_metadata: args.skip_record_metadata,
        };
        let decoded = batch.records(&mut self.scratch, limit);
        for record in &decoded.records {
            let control = summary.is_control.then(|| parse_control_record(record));
            self.printer
                .record(&summary, record, control.as_ref(), opts)?;
            if let Some(prev) = self
                .last_record_offset
                .filter(|&p| record.offset != p.wrapping_add(1))
            {
                self.non_consecutive.push((prev, record.offset));
            }
            self.last_record_offset = Some(record.offset);
        }
        if let Some(err) = decoded.error {
            self.printer.record_error(&summary, &err)?;
            eprintln!(
                "kseg: {}: records of the batch at byte {}: {err}",
                self.path.display(),
                summary.position
            );
            self.code = ExitCode::Findings;
        }
        Ok(true)
    }
}

/// Dumps record batches (a `.log` or a KRaft snapshot) under `header`.
fn dump_log(
    path: &Path,
    header: &str,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    // Read through a small reused buffer; the guard notes which pages were
    // cached before, so that dropping it can evict the others again.
    let _cache = (!args.keep_cache)
        .then(|| PageCacheGuard::open(path))
        .transpose()?;
    let file_len = std::fs::metadata(path)
        .map_err(|e| LogDirError::io(path, e))?
        .len();
    let mut walk = LogDump {
        path,
        args,
        printer,
        code: ExitCode::Ok,
        scratch: Vec::new(),
        last_record_offset: None,
        non_consecutive: Vec::new(),
        failed: None,
    };
    walk.printer.header(header)?;
    let end = walk_batches(path, |batch| match walk.batch(batch) {
        Ok(true) => ControlFlow::Continue(()),
        Ok(false) => ControlFlow::Break(()),
        Err(e) => {
            walk.failed = Some(e);
            ControlFlow::Break(())
        }
    })?;
    if let Some(e) = walk.failed {
        return Err(e.into());
    }
    let LogDump {
        mut code,
        non_consecutive,
        printer,
        ..
    } = walk;
    if let Some(err) = end.filter(|e| args.max_bytes.is_none_or(|max| e.offset < max)) {
        let len = file_len - err.offset;
        printer.trailing_bytes(
            &file_name(path),
            err.offset,
            len,
            &err,
            args.max_bytes.is_none(),
        )?;
        eprintln!(
            "kseg: {}: {err}; the {len} bytes from there to the end are not batches (Kafka's recovery truncates them; see `kseg verify`)",
            path.display()
        );
        code = ExitCode::Findings;
    }
    if !non_consecutive.is_empty() {
        // Expected on compacted topics; kafka-dump-log prints the same list (newest first).
        eprintln!("Non-consecutive offsets in {}", absolute(path));
        for (prev, next) in &non_consecutive {
            eprintln!("  {prev} is followed by {next}");
        }
    }
    Ok(code)
}

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

fn dump_offset_index(
    path: &Path,
    named_base: Option<i64>,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let base = named_base.unwrap_or(0);
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let index = OffsetIndex::new(&bytes, base);
    if index.kafka_entries() == 0 {
        printer.note("empty", &format!("{} is empty.", path.display()))?;
        return Ok(ExitCode::Ok);
    }
    let sanity = index
        .sanity_check()
        .map_err(|e| e.kafka_message(&absolute(path)));
    let mut code = match index_preamble(printer, path, args, sanity, index.size_error())? {
        Ok(code) => code,
        Err(done) => return Ok(done),
    };
    if !args.verify_index_only {
        for (slot, entry) in index.entries().enumerate() {
            printer.index_entry(&entry, slot)?;
        }
    }
    report_preallocation(path, index.live_entries(), index.kafka_entries(), 8);
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

fn dump_time_index(
    path: &Path,
    named_base: Option<i64>,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let base = named_base.unwrap_or(0);
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let index = TimeIndex::new(&bytes, base);
    let sanity = index
        .sanity_check()
        .map_err(|e| e.kafka_message(&absolute(path)));
    let code = match index_preamble(printer, path, args, sanity, index.size_error())? {
        Ok(code) => code,
        Err(done) => return Ok(done),
    };
    if !args.verify_index_only {
        for (slot, entry) in index.entries().enumerate() {
            printer.time_index_entry(&entry, slot)?;
        }
    }
    report_preallocation(path, index.live_entries(), index.kafka_entries(), 12);
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

fn dump_txn_index(path: &Path, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    let entries =
        parse_txn_index(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    for entry in &entries {
        printer.txn_entry(entry)?;
    }
    let partial = bytes.len() % kseg::format::txn_index::TXN_INDEX_ENTRY_SIZE;
    if partial != 0 {
        eprintln!(
            "kseg: {}: {partial} trailing bytes do not make a whole entry (Kafka ignores them)",
            path.display()
        );
        return Ok(ExitCode::Findings);
    }
    Ok(ExitCode::Ok)
}

fn dump_snapshot(path: &Path, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, INDEX_READ_LIMIT)?;
    match parse_producer_snapshot(&bytes) {
        Ok(snapshot) => {
            for entry in &snapshot.entries {
                printer.producer_entry(entry)?;
            }
            Ok(ExitCode::Ok)
        }
        Err(err) => {
            eprintln!("kseg: {}: corrupt producer snapshot {err}", path.display());
            Ok(ExitCode::Findings)
        }
    }
}

fn dump_text_file(
    path: &Path,
    kind: FileKind,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let bytes = read_small(path, 64 << 20)?;
    let text = String::from_utf8_lossy(&bytes);
    let bad = |e: kseg::format::FormatError| anyhow::anyhow!("{}: {e}", path.display());
    match kind {
        FileKind::LeaderEpochCheckpoint => {
            for e in parse_leader_epoch_checkpoint(&text).map_err(bad)? {
                printer.leader_epoch_entry(&e)?;
            }
        }
        FileKind::OffsetCheckpoint => {
            for e in parse_offset_checkpoint(&text).map_err(bad)? {
                printer.offset_checkpoint_entry(&e)?;
            }
        }
        FileKind::PartitionMetadata => {
            let meta = parse_partition_metadata(&text).map_err(bad)?;
            printer.property("version", &meta.version.to_string())?;
            printer.property("topic_id", &meta.topic_id)?;
        }
        FileKind::MetaProperties => {
            for (key, value) in parse_properties(&text) {
                printer.property(&key, &value)?;
            }
        }
        _ => printer.note("cleanShutdown", text.trim())?,
    }
    Ok(ExitCode::Ok)
}
