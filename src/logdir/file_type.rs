//! What a path is when it is neither a regular file nor a directory: a
//! device, a FIFO or a socket. kseg never opens one (opening a FIFO blocks
//! until a writer comes) and says what it is instead.

use std::fs::FileType;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// What a file type is, in words, when it is not a regular file or a
/// directory.
pub fn special_kind(file_type: FileType) -> Option<&'static str> {
    if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_fifo() {
        Some("a FIFO")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        None
    }
}

/// [`special_kind`] of what `path` names (following symlinks); `None`
/// for a regular file, a directory or nothing at all.
pub fn special_kind_of(path: &Path) -> Option<&'static str> {
    std::fs::metadata(path)
        .ok()
        .and_then(|m| special_kind(m.file_type()))
}
