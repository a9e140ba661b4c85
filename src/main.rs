//! The main entry point into crawlsift: parses the command line and runs one subcommand.

mod extract;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Read web crawls (WARC, ARC, TREC), extract main text and cluster duplicate documents.
#[derive(Parser, Debug)]
#[command(name = "crawlsift", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Extract the main text of pages: from archives, one HTML file, or a folder of HTML files.
    Extract(extract::ExtractArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Extract(args) => extract::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("crawlsift: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
