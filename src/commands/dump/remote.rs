//! `kseg dump URL`: a remote segment's `.log` object read in place from
//! object storage, in either open-source layout, printed exactly as the
//! same file on disk would be; its `.index` and `.timeindex` too, by those
//! names in either layout (in Aiven's they are ranges of one `.indexes`).

use std::path::Path;

use kseg::format::offset_index::OffsetIndex;
use kseg::format::time_index::TimeIndex;
use kseg::logdir::chunked::walk_stream;
use kseg::logdir::file_name::FileKind;
use kseg::objstore::aiven_crypto::KeyRing;
use kseg::objstore::{IndexKind, ObjectClient, RemoteSegmentObject};
use kseg::render::dump::{kind_name, log_header};
use kseg::render::dump_index::{print_offset_index, print_time_index};

use super::Printer;
use super::index::index_options;
use super::log::{BatchSource, dump_batches};
use crate::cli::DumpArgs;
use crate::exit_code::ExitCode;

/// Dumps the remote segment whose `.log` object `url` names.
pub(super) fn dump_remote(
    url: &str,
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let (client, key) = ObjectClient::connect(url)?;
    let keys = KeyRing::load(&args.aiven_private_key).map_err(anyhow::Error::msg)?;
    if let Some((log, kind)) = kseg::objstore::segment::index_log_key(&key) {
        let segment = RemoteSegmentObject::open(&client, &log, &keys)?;
        return dump_remote_index(url, &segment, (&client, kind), args, printer);
    }
    if key.as_ref().ends_with(".indexes") {
        anyhow::bail!(
            "{url}: Aiven's .indexes holds all of a segment's indexes; dump the .index or .timeindex of the same name"
        );
    }
    let segment = RemoteSegmentObject::open(&client, &key, &keys)?;
    printer.file(url, kind_name(FileKind::Log))?;
    let header = log_header(segment.base_offset.or(args.base_offset), "object");
    let source = BatchSource {
        path: Path::new(url),
        shown: url.to_string(),
        len: segment.size,
        decoder: super::forced_decoder(args),
    };
    let reader = segment.reader(&client)?;
    dump_batches(&source, &header, args, printer, |visit| {
        Ok(walk_stream(reader, segment.size, visit)?)
    })
}

/// Dumps `segment`'s offset or time index, named by `url`. The entries are
/// not checked against the `.log` as on disk: `kseg verify --remote` does
/// that while it streams the segment.
fn dump_remote_index(
    url: &str,
    segment: &RemoteSegmentObject,
    (client, kind): (&ObjectClient, IndexKind),
    args: &DumpArgs,
    printer: &mut Printer<'_>,
) -> anyhow::Result<ExitCode> {
    let (file_kind, name) = match kind {
        IndexKind::Offset => (FileKind::OffsetIndex, "offset index"),
        IndexKind::Time => (FileKind::TimeIndex, "time index"),
    };
    let Some((bytes, from)) = segment.index(client, kind)? else {
        anyhow::bail!("{url}: the segment's manifest lists no {name}");
    };
    if from != url {
        eprintln!("kseg: {url}: {}: read from {from}", segment.layout_name());
    }
    printer.file(url, kind_name(file_kind))?;
    let base = segment.base_offset.or(args.base_offset).unwrap_or(0);
    let (shown, options) = ((Path::new(url), url), index_options(args));
    let printed = match kind {
        IndexKind::Offset => print_offset_index(
            (printer, &mut std::io::stderr()),
            shown,
            &OffsetIndex::new(&bytes, base),
            options,
        )?,
        IndexKind::Time => print_time_index(
            (printer, &mut std::io::stderr()),
            shown,
            &TimeIndex::new(&bytes, base),
            options,
        )?,
    };
    Ok(ExitCode::findings_if(printed.findings))
}
