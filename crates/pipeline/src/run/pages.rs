//! `extract --html-dir` ([`run`]): every HTML page of a folder and its subfolders to the same
//! relative path under another folder, on all threads; and [`page_text`], one page's text
//! ([`read_page`] and [`print_page`]: `extract --html FILE`'s input and output).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crawlsift_extractor::{charset, format, Extractor, ExtractorBuilder, Format};

use crate::error::{fail, Result};
use crate::output;

/// What the folder run did.
#[derive(Debug)]
pub struct PagesDone {
    /// Pages written.
    pub written: usize,
    /// Pages that could not be read or written (each named on stderr).
    pub failed: usize,
    /// Folders or links that could not be read (each named on stderr).
    pub unreadable: usize,
}

impl PagesDone {
    /// The closing line of `extract --html-dir`: pages written to `out_dir`, and those that
    /// failed and the folders or links that could not be read, when there are any.
    pub fn summary(&self, out_dir: &Path) -> String {
        let mut line = format!("{} pages written to {}", self.written, out_dir.display());
        if self.failed > 0 {
            line.push_str(&format!("; {} failed", self.failed));
        }
        if self.unreadable > 0 {
            line.push_str(&format!(
                "; {} unreadable folders or links",
                self.unreadable
            ));
        }
        line
    }
}

/// The bytes of `extract --html`'s page: the file at `path`, or standard input for `-`.
pub fn read_page(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(drop)
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    read.map_err(|e| {
        let what = match path.as_os_str() == "-" {
            true => "reading stdin".to_string(),
            false => format!("cannot read {}", path.display()),
        };
        crate::Error::io(what, path, e)
    })?;
    Ok(bytes)
}

/// Writes a page's text to stdout, ended by a line end (none for an empty text).
pub fn print_page(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.is_empty() && !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// One page, decoded, extracted and written in `format`.
pub fn page_text(ex: &mut Extractor, bytes: &[u8], format: Format) -> String {
    let decoded = charset::decode(bytes, None, ex.config().charset);
    let page = ex.html_page(&decoded.text, None);
    format::render(
        format,
        &page.title,
        &page.text,
        &page.parts,
        page.metadata.as_deref(),
        &[],
    )
}

/// Whether a file name is an HTML page's: `.html` or `.htm`, in any case.
fn is_html_name(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"))
}

/// The pages under `dir`, recursively (symbolic links followed, loops reported and passed
/// over), in sorted order, as paths relative to `dir`; folders that cannot be read are named on
/// stderr and counted.
fn html_pages(dir: &Path) -> Result<(Vec<PathBuf>, usize)> {
    if !dir.is_dir() {
        fail!("cannot read {}: not a directory", dir.display());
    }
    let mut pages = Vec::new();
    let mut unreadable = 0;
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
    {
        match entry {
            Ok(e) if e.file_type().is_file() && is_html_name(e.path()) => {
                if let Ok(rel) = e.path().strip_prefix(dir) {
                    pages.push(rel.to_path_buf());
                }
            }
            Ok(_) => {}
            Err(err) => {
                eprintln!("crawlsift: {err}");
                unreadable += 1;
            }
        }
    }
    Ok((pages, unreadable))
}

/// Every page under `dir` to `out_dir/<relative path>.<ext>` in `format`, on `threads` threads,
/// each with an extractor of `builder`; `out_dir` is made and checked writable before any page
/// is read.
pub fn run(
    dir: &Path,
    out_dir: &Path,
    format: Format,
    builder: &ExtractorBuilder,
    threads: usize,
) -> Result<PagesDone> {
    let render = |ex: &mut Extractor, bytes: &[u8]| page_text(ex, bytes, format);
    run_with(dir, out_dir, format.extension(), builder, threads, &render)
}

/// As [`run`], but each page's output is `render`'s (for example the blocks the learned method
/// scores, `extract --dump-blocks`), written with the file extension `ext`.
pub fn run_with(
    dir: &Path,
    out_dir: &Path,
    ext: &str,
    builder: &ExtractorBuilder,
    threads: usize,
    render: &(dyn Fn(&mut Extractor, &[u8]) -> String + Sync),
) -> Result<PagesDone> {
    let (pages, unreadable) = html_pages(dir)?;
    output::writable_dir(out_dir)?;
    let threads = threads.clamp(1, pages.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    // Fail on a bad configuration before any thread starts.
    let mut extractors = (0..threads)
        .map(|_| builder.clone().build())
        .collect::<std::result::Result<Vec<Extractor>, _>>()?;
    std::thread::scope(|scope| {
        for ex in extractors.iter_mut() {
            let (pages, next, failed) = (&pages, &next, &failed);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(rel) = pages.get(i) else { break };
                let path = dir.join(rel);
                let target = out_dir.join(rel).with_extension(ext);
                let res = std::fs::read(&path).and_then(|bytes| {
                    let text = render(ex, &bytes);
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(&target, text)
                });
                if let Err(err) = res {
                    eprintln!("crawlsift: {}: {err}", path.display());
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let failed = failed.into_inner();
    Ok(PagesDone {
        written: pages.len() - failed,
        failed,
        unreadable,
    })
}
