//! `crawlsift extract`: main text of pages from archives, one HTML file, or a folder of HTML files.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `crawlsift extract`.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// Archive files or directories to read.
    pub inputs: Vec<std::path::PathBuf>,
}

/// Runs `crawlsift extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("extract is not implemented yet ({} inputs given)", args.inputs.len())
}
