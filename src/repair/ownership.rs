//! The owner, group and mode every file kseg writes carries. A broker runs
//! as its own user and opens indexes read-write and `.lock` for writing: a
//! file kseg (often run as root) left `root:root 0644` would stop that
//! broker at start-up. So a file kseg replaces keeps the owner, group and
//! mode of the file it replaces; a file it creates takes those of the
//! directory's other files; backup copies keep those of their originals.

use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
use std::path::Path;

/// A file's owner, group and permission bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileOwner {
    /// The owning user id.
    pub uid: u32,
    /// The owning group id.
    pub gid: u32,
    /// The permission bits (`0o7777` at most).
    pub mode: u32,
}

impl FileOwner {
    /// The owner, group and mode in `meta`.
    pub fn of(meta: &Metadata) -> Self {
        Self {
            uid: meta.uid(),
            gid: meta.gid(),
            mode: meta.mode() & 0o7777,
        }
    }

    /// Those of the file at `path`, or `None` when there is none.
    pub fn of_path(path: &Path) -> io::Result<Option<Self>> {
        match std::fs::symlink_metadata(path) {
            Ok(meta) => Ok(Some(Self::of(&meta))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What a new file in `dir` should carry: the owner, group and mode of
    /// the directory's segment files (`.log`), else of its other regular
    /// files (the first by name), else the directory's owner and group with
    /// its read and write bits.
    pub fn for_new_file_in(dir: &Path) -> io::Result<Self> {
        let mut files: Vec<(bool, std::ffi::OsString, Metadata)> = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let meta = entry.metadata()?;
            if meta.is_file() {
                let not_log = !name.to_string_lossy().ends_with(".log");
                files.push((not_log, name, meta));
            }
        }
        if let Some((_, _, meta)) = files.iter().min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1))) {
            return Ok(Self::of(meta));
        }
        let dir_meta = std::fs::metadata(dir)?;
        Ok(Self {
            uid: dir_meta.uid(),
            gid: dir_meta.gid(),
            mode: dir_meta.mode() & 0o666,
        })
    }

    /// What the file at `path` should carry when kseg writes it: its own
    /// owner and mode when it exists, else those of a new file beside it.
    pub fn for_path(path: &Path) -> io::Result<Self> {
        match Self::of_path(path)? {
            Some(owner) => Ok(owner),
            None => Self::for_new_file_in(path.parent().unwrap_or(Path::new("."))),
        }
    }

    /// Gives `file` this owner, group and mode. The owner is changed only
    /// when it differs, so a run as the files' own user needs no privilege;
    /// one that cannot give the file its owner fails rather than leave a
    /// file the broker may not be able to open.
    pub fn apply(&self, file: &File) -> io::Result<()> {
        let now = Self::of(&file.metadata()?);
        if (now.uid, now.gid) != (self.uid, self.gid) {
            fchown(file, Some(self.uid), Some(self.gid))?;
        }
        file.set_permissions(std::fs::Permissions::from_mode(self.mode))
    }

    /// `uid:gid:mode` (mode in octal), as the backup manifest records it.
    pub fn to_manifest(&self) -> String {
        format!("{}:{}:{:o}", self.uid, self.gid, self.mode)
    }

    /// Parses [`FileOwner::to_manifest`]'s form.
    pub fn from_manifest(text: &str) -> Option<Self> {
        let mut parts = text.split(':');
        let uid = parts.next()?.parse().ok()?;
        let gid = parts.next()?.parse().ok()?;
        let mode = u32::from_str_radix(parts.next()?, 8).ok()?;
        (parts.next().is_none() && mode <= 0o7777).then_some(Self { uid, gid, mode })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_form_round_trips_and_rejects_junk() {
        let owner = FileOwner {
            uid: 1001,
            gid: 42,
            mode: 0o640,
        };
        assert_eq!(owner.to_manifest(), "1001:42:640");
        assert_eq!(FileOwner::from_manifest("1001:42:640"), Some(owner));
        for junk in ["", "1:2", "1:2:9", "1:2:640:1", "a:2:640", "1:2:77777"] {
            assert_eq!(FileOwner::from_manifest(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn a_new_file_takes_the_segment_files_mode() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("00000000000000000000.log");
        let other = dir.path().join("00000000000000000000.index");
        std::fs::write(&log, b"").unwrap();
        std::fs::write(&other, b"").unwrap();
        std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o644)).unwrap();
        let owner = FileOwner::for_new_file_in(dir.path()).unwrap();
        assert_eq!(owner.mode, 0o600);
        assert_eq!(
            FileOwner::for_path(&dir.path().join("x.snapshot")).unwrap(),
            owner
        );
        assert_eq!(FileOwner::for_path(&other).unwrap().mode, 0o644);
    }
}
