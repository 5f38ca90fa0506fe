//! Crash-safe file replacement and truncation.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::{AtStep, RepairError};
use super::ownership::FileOwner;

/// Environment variable: exit abruptly (code 99) at the N-th crash point a
/// writing command reaches, for tests that prove every step of every write
/// leaves each file either old or new, and the backup complete.
pub const CRASH_AFTER_ENV: &str = "KSEG_CRASH_AFTER";

static CRASH_POINTS_PASSED: AtomicUsize = AtomicUsize::new(0);

/// A place where a crash must be harmless; see [`CRASH_AFTER_ENV`].
pub fn crash_point(_step: &str) {
    let Some(limit) = std::env::var(CRASH_AFTER_ENV)
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    else {
        return;
    };
    if CRASH_POINTS_PASSED.fetch_add(1, Ordering::SeqCst) + 1 == limit {
        std::process::exit(99);
    }
}

/// Suffix of the temporary file written beside a file being replaced.
pub const TEMP_SUFFIX: &str = ".kseg-tmp";

fn sync_dir(dir: &Path) -> Result<(), RepairError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .at("fsyncing directory", dir)
}

/// Replaces `target` with `bytes`: temp file beside it, fsync, rename, fsync
/// dir. The new file keeps the owner, group and mode of the one it replaces
/// (a new file takes those of its directory's files).
pub fn replace_file(target: &Path, bytes: &[u8]) -> Result<(), RepairError> {
    let owner = FileOwner::for_path(target).at("reading the owner and mode for", target)?;
    replace_file_as(target, bytes, &owner)
}

/// [`replace_file`], giving the new file `owner`'s owner, group and mode.
pub fn replace_file_as(target: &Path, bytes: &[u8], owner: &FileOwner) -> Result<(), RepairError> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}{TEMP_SUFFIX}"));
    let mut file = File::create(&tmp).at("creating temporary file", &tmp)?;
    crash_point("after-create-temp");
    let written = write_temp(&mut file, &tmp, target, bytes, owner);
    drop(file);
    if let Err(err) = written {
        // Nothing was replaced: leave no temporary file behind.
        let _ = fs::remove_file(&tmp);
        return Err(err);
    }
    crash_point("before-rename");
    fs::rename(&tmp, target).at("renaming the temporary file over", target)?;
    crash_point("after-rename");
    sync_dir(dir)
}

/// Gives the temporary file `tmp` its owner and mode, writes `bytes` and
/// fsyncs it.
fn write_temp(
    file: &mut File,
    tmp: &Path,
    target: &Path,
    bytes: &[u8],
    owner: &FileOwner,
) -> Result<(), RepairError> {
    owner
        .apply(file)
        .at("giving the temporary file the owner and mode of", target)?;
    file.write_all(bytes).at("writing temporary file", tmp)?;
    crash_point("after-write-temp");
    file.sync_all().at("fsyncing temporary file", tmp)
}

/// Truncates `target` to `len` bytes and fsyncs it (a truncation is atomic
/// for the file system; the removed tail is in the backup).
pub fn truncate_file(target: &Path, len: u64) -> Result<(), RepairError> {
    let file = OpenOptions::new()
        .write(true)
        .open(target)
        .at("opening for truncation", target)?;
    crash_point("before-truncate");
    file.set_len(len).at("truncating", target)?;
    crash_point("after-truncate");
    file.sync_all().at("fsyncing", target)
}
