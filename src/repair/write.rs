//! Crash-safe file replacement and truncation.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Environment variable naming a step at which to exit abruptly, for tests
/// that prove every step leaves either the old or the new file.
pub const CRASH_AT_ENV: &str = "KSEG_CRASH_AT";

/// Exits the process at once when `KSEG_CRASH_AT` names `step`.
pub fn crash_point(step: &str) {
    if std::env::var(CRASH_AT_ENV).is_ok_and(|s| s == step) {
        std::process::exit(99);
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Replaces `target` with `bytes`: temp file beside it, fsync, rename, fsync dir.
pub fn replace_file(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.kseg-tmp"));
    {
        let mut file = File::create(&tmp)?;
        crash_point("after-create-temp");
        file.write_all(bytes)?;
        crash_point("after-write-temp");
        file.sync_all()?;
    }
    crash_point("before-rename");
    fs::rename(&tmp, target)?;
    crash_point("after-rename");
    sync_dir(dir)
}

/// Truncates `target` to `len` bytes and fsyncs it (a truncation is atomic
/// for the file system; the removed tail is in the backup).
pub fn truncate_file(target: &Path, len: u64) -> io::Result<()> {
    let file = OpenOptions::new().write(true).open(target)?;
    crash_point("before-truncate");
    file.set_len(len)?;
    file.sync_all()
}
