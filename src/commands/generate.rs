//! The hidden `kseg generate`: completions, man pages and the bundled test
//! partition, all from kseg's own code.

use std::fs;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, GenerateArgs, GenerateWhat};
use crate::exit_code::ExitCode;

/// Runs `kseg generate`.
pub fn run(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    fs::create_dir_all(&args.out_dir)?;
    match args.what {
        GenerateWhat::Completions => {
            for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
                clap_complete::generate_to(shell, &mut Cli::command(), "kseg", &args.out_dir)?;
            }
        }
        GenerateWhat::Man => {
            let cmd = Cli::command();
            clap_mangen::generate_to(cmd, &args.out_dir)?;
        }
        GenerateWhat::Testdata => {
            kseg::fixture::write_classic(&args.out_dir.join("orders-0"))?;
            kseg::fixture::write_unclean_election(&args.out_dir.join("diverge"))?;
        }
    }
    Ok(ExitCode::Ok)
}
