//! `kseg dump URL`: a remote segment's `.log` object read in place from
//! object storage, in either open-source layout, printed exactly as the
//! same file on disk would be.

use std::path::Path;

use kseg::logdir::chunked::walk_stream;
use kseg::logdir::file_name::FileKind;
use kseg::objstore::aiven_crypto::KeyRing;
use kseg::objstore::{ObjectClient, RemoteSegmentObject};
use kseg::render::dump::{kind_name, log_header};

use super::Printer;
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
