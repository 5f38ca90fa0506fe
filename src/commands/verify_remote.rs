//! `kseg verify --remote URL`: every remote segment under an object-store
//! prefix, checked where it lies.

use kseg::inspect::index::build::DEFAULT_INDEX_INTERVAL_BYTES;
use kseg::inspect::recovery::remote_segment::{RemoteSegmentCheck, check_remote_segment};
use kseg::objstore::aiven_crypto::KeyRing;
use kseg::objstore::{ObjectClient, RemoteSegmentObject};
use kseg::render::OutputFormat;
use kseg::render::remote_check::{write_remote_check, write_remote_summary};

use crate::cli::VerifyArgs;

/// Checks and prints the remote segments under each URL; returns whether
/// any has findings.
pub fn verify_remote(args: &VerifyArgs) -> anyhow::Result<bool> {
    let format = OutputFormat::json_if(args.target.json);
    let keys = KeyRing::load(&args.aiven_private_key).map_err(anyhow::Error::msg)?;
    let mut out = std::io::stdout().lock();
    let mut any = false;
    for url in &args.remote {
        let (client, prefix) = ObjectClient::connect(url)?;
        let logs: Vec<_> = client
            .list(&prefix)?
            .into_iter()
            .filter(|o| o.location.as_ref().ends_with(".log"))
            .collect();
        let mut with_findings = 0;
        for object in &logs {
            let check = match RemoteSegmentObject::open(&client, &object.location, &keys) {
                Ok(segment) => check_remote_segment(
                    &client,
                    &segment,
                    DEFAULT_INDEX_INTERVAL_BYTES,
                    args.target.deep,
                ),
                Err(e) => unreadable(&client, &object.location, e.to_string()),
            };
            let findings = check.findings();
            with_findings += usize::from(!findings.is_empty());
            write_remote_check(&mut out, &check, &findings, format)?;
        }
        write_remote_summary(&mut out, url, logs.len(), with_findings, format)?;
        any |= with_findings > 0;
    }
    Ok(any)
}

/// The check of a segment whose objects do not open.
fn unreadable(
    client: &ObjectClient,
    log: &object_store::path::Path,
    why: String,
) -> RemoteSegmentCheck {
    RemoteSegmentCheck {
        url: client.url(log),
        layout: "unknown",
        base_offset: kseg::objstore::segment::name_base_offset(log),
        size: 0,
        build: Default::default(),
        audit: Default::default(),
        offset_index: kseg::inspect::index::health::IndexHealth::Missing,
        time_index: kseg::inspect::index::health::IndexHealth::Missing,
        unreadable: Some(why),
    }
}
