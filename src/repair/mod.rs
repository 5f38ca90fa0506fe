//! The only code that writes into a partition directory. It refuses while a
//! broker holds the log dir's lock, copies every file it will change into a
//! backup directory first (with a manifest for undo), and replaces files by
//! writing a temporary file beside them, fsyncing it, renaming it over the
//! old one and fsyncing the directory.

pub mod backup;
pub mod error;
pub mod index_rebuild;
pub mod lock;
pub mod recovery;
pub mod salvage;
pub mod write;

pub use backup::Backup;
pub use error::{AtStep, RepairError};
pub use lock::{LogDirLock, lock_log_dirs};
pub use write::{replace_file, truncate_file};
