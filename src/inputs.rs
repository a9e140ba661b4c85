//! The run's input list: expanded arguments with their sizes and the names outputs use for them.

use std::path::PathBuf;

use anyhow::Context;
use crawlsift_reader::Input;

/// Inputs in the order they are read; `file` indices in every `SourcePos` point into this list.
pub struct InputSet {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// Size in bytes of each input (0 for stdin and for files that cannot be measured).
    sizes: Vec<u64>,
    /// Running total of sizes before each input, for progress.
    before: Vec<u64>,
    names: Vec<String>,
}

impl InputSet {
    /// Expands command-line arguments (files, directories, `-`).
    pub fn expand(args: &[PathBuf]) -> anyhow::Result<Self> {
        let inputs = crawlsift_reader::expand_inputs(args).context("reading the input list")?;
        if inputs.is_empty() {
            anyhow::bail!(
                "no input files found in {}",
                args.iter()
                    .map(|a| a.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let sizes: Vec<u64> = inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
                Input::Stdin => 0,
            })
            .collect();
        let before = sizes
            .iter()
            .scan(0u64, |acc, s| {
                let b = *acc;
                *acc += s;
                Some(b)
            })
            .collect();
        let names = inputs
            .iter()
            .map(|i| i.path().display().to_string())
            .collect();
        Ok(InputSet {
            inputs,
            sizes,
            before,
            names,
        })
    }

    /// Total input bytes (stdin counts 0).
    pub fn total_bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }

    /// Bytes of all inputs before input `file`.
    pub fn bytes_before(&self, file: u32) -> u64 {
        self.before.get(file as usize).copied().unwrap_or(0)
    }

    /// The name of input `file`, as given on the command line (or found in a directory).
    pub fn name(&self, file: u32) -> &str {
        self.names
            .get(file as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }
}
