//! A `.log` (or KRaft snapshot) dump: batches stream past one reused
//! buffer, records are decoded only when asked for.

use std::ops::ControlFlow;
use std::path::Path;

use kseg::format::Record;
use kseg::format::record::parse_control_record;
use kseg::format::{FileBatch, FormatError};
use kseg::logdir::chunked::walk_batches;
use kseg::logdir::{LogDirError, PageCacheGuard};
use kseg::render::dump::RecordOptions;
use kseg::schema::emit::TextEmitter;
use kseg::schema::{
    Decoded, DecodedRecord, InternalTopic, decode_in_batch, decode_in_batch_text, newer_than_known,
};
use serde_json::Value;

use super::{Printer, absolute, file_name};
use crate::cli::DumpArgs;
use crate::exit_code::ExitCode;

/// The state of one `.log` dump while its batches stream past.
struct LogDump<'p, 'w> {
    path: &'p Path,
    args: &'p DumpArgs,
    printer: &'p mut Printer<'w>,
    /// The internal topic whose records these are, when decoding.
    decoder: Option<InternalTopic>,
    code: ExitCode,
    scratch: Vec<u8>,
    /// Scratch space for decoded records' JSON text.
    text: TextEmitter,
    last_record_offset: Option<i64>,
    non_consecutive: Vec<(i64, i64)>,
    failed: Option<std::io::Error>,
}

/// Why a record that did not decode is newer than every release kseg
/// knows; such a record is a finding (it is printed raw).
fn newer<P>(
    path: &Path,
    code: &mut ExitCode,
    topic: InternalTopic,
    d: &DecodedRecord<P>,
    record: &Record<'_>,
) -> Option<String> {
    let failed = |p: &Decoded<P>| matches!(p, Decoded::Failed(_));
    if !(failed(&d.key) || failed(&d.value)) {
        return None;
    }
    let why = newer_than_known(topic, record.key, record.value)?;
    eprintln!(
        "kseg: {}: record at offset {}: {why}",
        path.display(),
        record.offset
    );
    *code = ExitCode::Findings;
    Some(why)
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
        let print_data = args.print_data_log || super::forced_decoder(args).is_some();
        if !(args.deep_iteration || print_data || args.skip_record_metadata) {
            return Ok(true);
        }
        let opts = RecordOptions {
            print_data,
            skip_metadata: args.skip_record_metadata,
        };
        let decoded = batch.records(&mut self.scratch, limit);
        for record in &decoded.records {
            let control = summary.is_control.then(|| parse_control_record(record));
            let (s, c) = (&summary, control.as_ref());
            match self.decoder {
                // Text output takes decoded records as JSON text, written
                // straight from the bytes.
                Some(topic) if self.printer.prints_text() => {
                    let (k, v) = (record.key, record.value);
                    let d = decode_in_batch_text(topic, s.is_control, k, v, &mut self.text);
                    let newer = newer(self.path, &mut self.code, topic, &d, record);
                    self.printer
                        .record(s, record, c, Some((topic, &d)), opts, newer.as_deref())?;
                }
                Some(topic) => {
                    let d = decode_in_batch(topic, s.is_control, record.key, record.value);
                    let newer = newer(self.path, &mut self.code, topic, &d, record);
                    self.printer
                        .record(s, record, c, Some((topic, &d)), opts, newer.as_deref())?;
                }
                None => self
                    .printer
                    .record::<Value>(s, record, c, None, opts, None)?,
            }
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
pub(super) fn dump_log(
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
    let len = std::fs::metadata(path)
        .map_err(|e| LogDirError::io(path, e))?
        .len();
    let source = BatchSource {
        path,
        shown: absolute(path),
        len,
        decoder: super::decoder_for(path, args),
    };
    dump_batches(&source, header, args, printer, |visit| {
        Ok(walk_batches(path, visit)?)
    })
}

/// What a dump's batches are read from.
pub(super) struct BatchSource<'p> {
    /// The file (or object URL) as named on the command line.
    pub path: &'p Path,
    /// Its name in full, as kafka-dump-log prints it.
    pub shown: String,
    /// Its size in bytes.
    pub len: u64,
    /// The internal topic whose records these are, when decoding.
    pub decoder: Option<InternalTopic>,
}

/// One walk over every batch, handing each to the visitor until it breaks;
/// returns the framing error that ended it.
type Visit<'a> = &'a mut dyn FnMut(&FileBatch<'_>) -> ControlFlow<()>;

/// Dumps the batches `walk` yields from `source` under `header`.
pub(super) fn dump_batches(
    source: &BatchSource<'_>,
    header: &str,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
    walk: impl FnOnce(Visit<'_>) -> anyhow::Result<Option<FormatError>>,
) -> anyhow::Result<ExitCode> {
    let path = source.path;
    let mut walk_state = LogDump {
        path,
        args,
        printer,
        decoder: source.decoder,
        code: ExitCode::Ok,
        scratch: Vec::new(),
        text: TextEmitter::default(),
        last_record_offset: None,
        non_consecutive: Vec::new(),
        failed: None,
    };
    walk_state.printer.header(header)?;
    let end = walk(&mut |batch| match walk_state.batch(batch) {
        Ok(true) => ControlFlow::Continue(()),
        Ok(false) => ControlFlow::Break(()),
        Err(e) => {
            walk_state.failed = Some(e);
            ControlFlow::Break(())
        }
    })?;
    if let Some(e) = walk_state.failed {
        return Err(e.into());
    }
    let LogDump {
        mut code,
        non_consecutive,
        printer,
        ..
    } = walk_state;
    if let Some(err) = end.filter(|e| args.max_bytes.is_none_or(|max| e.offset < max)) {
        let len = source.len - err.offset;
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
        eprintln!("Non-consecutive offsets in {}", source.shown);
        for (prev, next) in &non_consecutive {
            eprintln!("  {prev} is followed by {next}");
        }
    }
    Ok(code)
}
