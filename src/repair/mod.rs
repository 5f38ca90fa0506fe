//! The only code that writes into a partition directory. It refuses while a
//! broker holds the log dir's lock, copies every file it will change into a
//! backup directory first (with a manifest for undo), and replaces files by
//! writing a temporary file beside them, fsyncing it, renaming it over the
//! old one and fsyncing the directory; every file it writes keeps the
//! owner, group and mode of the one it replaces.

pub mod backup;
pub mod backup_place;
pub mod error;
pub mod index_rebuild;
pub mod lock;
pub mod lost_export;
pub mod ownership;
pub mod recovery;
pub mod salvage;
pub mod write;

pub use backup::Backup;
pub use error::{AtStep, RepairError};
pub use lock::{LogDirLock, lock_log_dirs};
pub use ownership::FileOwner;
pub use write::{replace_file, replace_file_as, truncate_file};
