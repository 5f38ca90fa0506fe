//! kseg's exit codes.

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything checked out.
    Ok = 0,
    /// The run completed and found problems (corruption, mismatches, a dump
    /// that stopped at bytes it could not frame).
    Findings = 1,
    /// Usage or I/O error: the job could not be done.
    Error = 2,
}

impl ExitCode {
    /// Findings when `found`, else Ok.
    pub fn findings_if(found: bool) -> Self {
        if found { Self::Findings } else { Self::Ok }
    }

    /// The worse of two outcomes.
    pub fn max(self, other: Self) -> Self {
        if other as u8 > self as u8 {
            other
        } else {
            self
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        Self::from(code as u8)
    }
}
