//! `kseg verify --remote URL`: every remote segment under an object-store
//! prefix, checked where it lies.

use kseg::inspect::recovery::remote_segment::check_remote_prefix;
use kseg::objstore::ObjectClient;
use kseg::objstore::aiven_crypto::KeyRing;
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
        let mut with_findings = 0;
        let segments = check_remote_prefix(&client, &prefix, &keys, args.target.deep, |check| {
            let findings = check.findings();
            with_findings += usize::from(!findings.is_empty());
            write_remote_check(&mut out, &check, &findings, format).map_err(anyhow::Error::from)
        })?;
        write_remote_summary(&mut out, url, segments, with_findings, format)?;
        any |= with_findings > 0;
    }
    Ok(any)
}
