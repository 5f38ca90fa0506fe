//! `kseg dump FILE…`: every file of a partition directory, in
//! kafka-dump-log's line format or as NDJSON. Each file is identified
//! (`logdir::identify`), read, checked where Kafka's tool checks it, and
//! printed through one `DumpPrinter`; problems go to stderr with the
//! file's name and byte position.

mod files;
mod index;
mod log;
mod remote;

use std::io::{self, BufWriter};
use std::path::Path;

use kseg::logdir::file_name::{FileKind, parse_kraft_snapshot};
use kseg::logdir::identify::{NotDumpable, identify};
use kseg::render::dump::{kind_name, log_header};
use kseg::render::{ByteEncoding, DumpPrinter, OutputFormat};
use kseg::schema::InternalTopic;

use crate::cli::{DumpArgs, EncodingArg};
use crate::exit_code::ExitCode;

/// The printer every file of one run is dumped through.
type Printer<'a> = DumpPrinter<BufWriter<io::StdoutLock<'a>>>;

/// Runs `kseg dump`.
pub fn run(args: &DumpArgs) -> anyhow::Result<ExitCode> {
    let format = OutputFormat::json_if(args.json);
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

/// A path's last component, as text.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A path made absolute, as kafka-dump-log prints it (as given if that fails).
pub(super) fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The internal topic a `--*-decoder` flag names.
pub(super) fn forced_decoder(args: &DumpArgs) -> Option<InternalTopic> {
    [
        (args.offsets_decoder, InternalTopic::ConsumerOffsets),
        (
            args.transaction_log_decoder,
            InternalTopic::TransactionState,
        ),
        (
            args.cluster_metadata_decoder,
            InternalTopic::ClusterMetadata,
        ),
        (
            args.remote_log_metadata_decoder,
            InternalTopic::RemoteLogMetadata,
        ),
        (
            args.share_group_state_decoder,
            InternalTopic::ShareGroupState,
        ),
    ]
    .into_iter()
    .find_map(|(set, topic)| set.then_some(topic))
}

/// How a file's records are decoded: as the flag says, else by the
/// partition directory's name (`__consumer_offsets-7`, or a `…-future`,
/// `…-delete` or `…-stray` copy of it; a controller's
/// `bootstrap.checkpoint` holds metadata records), else not at all.
pub(super) fn decoder_for(path: &Path, args: &DumpArgs) -> Option<InternalTopic> {
    if args.no_decode {
        return None;
    }
    if let Some(topic) = forced_decoder(args) {
        return Some(topic);
    }
    if file_name(path) == "bootstrap.checkpoint" {
        return Some(InternalTopic::ClusterMetadata);
    }
    let absolute = std::path::absolute(path).ok()?;
    let dir = absolute.parent()?.file_name()?.to_str()?;
    // `…-future` and `…-stray` copies hold the same topic's records.
    let (topic, partition) = kseg::logdir::file_name::parse_partition_dir(dir)?;
    InternalTopic::of_partition_dir(&format!("{topic}-{partition}"))
}

/// Dumps one file; problems with the file itself are reported and turned
/// into an exit code, only output errors abort the run.
fn dump_file(path: &Path, args: &DumpArgs, printer: &mut Printer<'_>) -> anyhow::Result<ExitCode> {
    if let Some(url) = path.to_str().filter(|p| kseg::objstore::is_object_url(p)) {
        return finish(remote::dump_remote(url, args, printer));
    }
    let (kind, base) = match identify(path, args.base_offset) {
        Ok(found) => (found.kind, found.base_offset),
        Err(why) => {
            let hint = match why {
                NotDumpable::Directory => {
                    " (verify, locate and retention-report take partition directories)"
                }
                _ => "",
            };
            eprintln!("kseg: {}: {why}{hint}; skipped", path.display());
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
            let header = log_header(base, "file");
            log::dump_log(path, &header, args, printer)
        }
        FileKind::KraftSnapshot => {
            let header = match parse_kraft_snapshot(&name) {
                Some((offset, epoch)) => format!("Snapshot end offset: {offset}, epoch: {epoch}"),
                None => "KRaft bootstrap snapshot".to_string(),
            };
            log::dump_log(path, &header, args, printer)
        }
        FileKind::OffsetIndex | FileKind::TimeIndex => {
            if base.is_none() {
                unknown_base(
                    "offsets are shown relative to the segment's base offset, and are not checked against a .log",
                );
            }
            if kind == FileKind::OffsetIndex {
                index::dump_offset_index(path, base, args, printer)
            } else {
                index::dump_time_index(path, base, args, printer)
            }
        }
        FileKind::TxnIndex => files::dump_txn_index(path, printer),
        FileKind::ProducerSnapshot => files::dump_snapshot(path, printer),
        _ => files::dump_text_file(path, kind, printer),
    };
    finish(result)
}

/// A file's dump turned into its exit code: problems with the file are
/// reported, only output errors abort the run.
fn finish(result: anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match result {
        Ok(code) => Ok(code),
        Err(err) if err.downcast_ref::<io::Error>().is_some() => Err(err),
        Err(err) => {
            eprintln!("kseg: {err:#}");
            Ok(ExitCode::Error)
        }
    }
}
