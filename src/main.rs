//! The `crawlsift` binary: the command line of [`crawlsift_cli`], with a Ctrl-C handler (the first
//! Ctrl-C asks for a clean stop, a second ends the process at once).

use std::process::ExitCode;

fn main() -> ExitCode {
    let _ = ctrlc::set_handler(|| {
        if crawlsift_cli::request_stop() {
            std::process::exit(i32::from(crawlsift_cli::EXIT_INTERRUPTED));
        }
        eprintln!(
            "\ncrawlsift: interrupted; finishing the work in flight (Ctrl-C again to quit at once)"
        );
    });
    ExitCode::from(crawlsift_cli::run(std::env::args_os()))
}
