//! `crawlsift extract`: main text of pages from archives, one HTML file, or a folder of HTML files.
//!
//! The `--html` and `--html-dir` modes live here; archive inputs go to [`archives`].

mod archives;
use crawlsift_extractor::learned::explain;

use crate::ExitCode;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};
use crawlsift_extractor::blocks::Tuning;
use crawlsift_extractor::{CharsetMode, Extractor, ExtractorBuilder, Format, Method};
use crawlsift_pipeline::run::pages::{self, page_text};

/// Arguments of `crawlsift extract`.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    #[command(flatten)]
    pub inputs: crate::InputArgs,

    /// Output file for archive inputs; a name ending in `.gz` or `.zst` is compressed (gzip,
    /// zstd) whatever the format. An existing file is not overwritten without `--force`.
    #[arg(short = 'o', long = "output", conflicts_with_all = ["html", "html_dir"])]
    pub output: Option<PathBuf>,

    /// Overwrite the `-o` file if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,

    /// Extract one HTML page (a file, or `-` for stdin) and print its main text.
    #[arg(long, value_name = "FILE", group = "source", conflicts_with_all = ["html_dir", "inputs", "input_list"])]
    pub html: Option<PathBuf>,

    /// Extract every page of this folder and its subfolders (names ending in `.html` or `.htm`,
    /// in any case) to the same relative path under `--out-dir`, with the format's extension.
    #[arg(
        long,
        value_name = "DIR",
        requires = "out_dir",
        group = "source",
        conflicts_with_all = ["inputs", "input_list"]
    )]
    pub html_dir: Option<PathBuf>,

    /// Where `--html-dir` writes its `.txt` files (created if missing).
    #[arg(long, value_name = "DIR", requires = "html_dir")]
    pub out_dir: Option<PathBuf>,

    /// Main-text method.
    #[arg(long, value_enum, default_value_t = MethodArg::Learned)]
    pub method: MethodArg,

    /// Character set of `--html`/`--html-dir` pages: `auto` (default: BOM, `<meta>`, then a
    /// detector; a page declared legacy whose bytes are UTF-8 reads as UTF-8) or `utf-8` (always).
    #[arg(long, value_enum, default_value_t = CharsetArg::Auto)]
    pub charset: CharsetArg,

    /// Output format: `txt`, `json`, `markdown` (headings, lists, tables, emphasis), `xml`
    /// (trafilatura's TEI-like shape) or `parquet` (archives, with `-o`: the JSON lines' rows).
    /// Default: `json` lines for archives, `txt` for `--html` and `--html-dir`. Chosen by this
    /// flag only, never from a file name.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    /// Read each page's metadata (title, author, publication date, site name, language,
    /// description, canonical URL) into the JSON fields or the Markdown/XML/text header.
    #[arg(long)]
    pub with_metadata: bool,

    /// A share of the `blocks` method, `NAME=VALUE` (repeatable): `article_share`,
    /// `sibling_share`, `alt_share`, `min_clean_share`. The defaults are the tuned values; set
    /// one to try another share on your pages.
    #[arg(long, value_name = "NAME=VALUE", value_parser = tune_arg)]
    pub tune: Vec<String>,

    /// Archive inputs: split each feed (RSS, Atom, RDF) into one line per item instead of
    /// skipping it as `feed` (`dedup` never clusters feeds).
    #[arg(long, conflicts_with_all = ["html", "html_dir"])]
    pub feeds: bool,

    /// `--html`: print each text block with a summary of its features, the `learned` method's
    /// score and whether it is kept, and why, instead of the text.
    #[arg(long, requires = "html")]
    pub explain: bool,

    /// `--html-dir`: write each page's block table (decision, score, every feature, text;
    /// tab-separated, a header line first) to `<name>.blocks.tsv` instead of its text: what
    /// a model for the `learned` method is trained on.
    #[arg(long, requires = "html_dir")]
    pub dump_blocks: bool,

    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = crate::threads_arg)]
    pub threads: Option<usize>,
}

/// `--method` values.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodArg {
    /// Container scoring and block filtering (`dedup`'s, `stats`' and `index`'s method).
    Blocks,
    /// Finn's Body Text Extraction.
    Plateau,
    /// All visible text.
    Full,
    /// A block classifier trained on labelled pages (its features include `blocks`' decisions):
    /// the default, the best on pages neither method was tuned on.
    Learned,
}

/// Checks a `--tune` setting, so a bad one is a usage error (status 2).
fn tune_arg(s: &str) -> Result<String, String> {
    Tuning::default()
        .set(s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

/// `--format` values.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatArg {
    /// The main text, one block per line.
    Txt,
    /// JSON (one line per document for archives).
    Json,
    /// Markdown.
    #[value(alias = "md")]
    Markdown,
    /// TEI-like XML, as trafilatura writes it.
    Xml,
    /// Archives only: the rows and columns of the JSON lines, as a Parquet file.
    Parquet,
}

/// `--charset` values.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetArg {
    /// Sniff: BOM, `<meta>`, detector.
    Auto,
    /// Always UTF-8.
    #[value(name = "utf-8", alias = "utf8")]
    Utf8,
}

impl ExtractArgs {
    fn method(&self) -> Method {
        match self.method {
            MethodArg::Blocks => Method::Blocks,
            MethodArg::Plateau => Method::Plateau,
            MethodArg::Full => Method::Full,
            MethodArg::Learned => Method::Learned,
        }
    }

    fn extractor(&self) -> anyhow::Result<Extractor> {
        Ok(self.builder()?.charset(self.charset_mode()).build()?)
    }

    /// The extractor's settings but the charset: method, structure and metadata as the format
    /// and `--with-metadata` need.
    fn builder(&self) -> anyhow::Result<ExtractorBuilder> {
        let mut tuning = Tuning::default();
        for t in &self.tune {
            tuning.set(t)?;
        }
        Ok(ExtractorBuilder::new()
            .method(self.method())
            .structure(self.format(Format::Txt).structured())
            .metadata(self.with_metadata)
            .tuning(tuning))
    }

    /// The output format, `default` when `--format` is not given.
    pub(crate) fn format(&self, default: Format) -> Format {
        match self.format {
            None => default,
            Some(FormatArg::Txt) => Format::Txt,
            Some(FormatArg::Json | FormatArg::Parquet) => Format::Json,
            Some(FormatArg::Markdown) => Format::Markdown,
            Some(FormatArg::Xml) => Format::Xml,
        }
    }

    fn charset_mode(&self) -> CharsetMode {
        match self.charset {
            CharsetArg::Auto => CharsetMode::Auto,
            CharsetArg::Utf8 => CharsetMode::Utf8,
        }
    }
}

/// Runs `crawlsift extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    if args.format == Some(FormatArg::Parquet) && (args.html.is_some() || args.html_dir.is_some()) {
        let why = "--format parquet is for archive inputs (with -o FILE), not --html or --html-dir";
        return Err(crawlsift_pipeline::Error::Usage(why.into()).into());
    }
    if let Some(path) = &args.html {
        return run_one(&args, path);
    }
    if let Some(dir) = &args.html_dir {
        let out = args
            .out_dir
            .as_deref()
            .context("--html-dir needs --out-dir")?;
        return run_dir(&args, dir, out);
    }
    // Archive inputs (WARC/ARC/TREC): the charset comes from HTTP, BOM, <meta> or detection,
    // whatever `--charset` says (that flag is for the bare-HTML modes).
    let builder = args.builder()?.charset(CharsetMode::Auto);
    archives::run(&args, builder)
}

/// `--html FILE`: the page's main text on stdout (a reader that goes away, `| head`, ends it
/// quietly: `main` treats a broken pipe as a normal end).
fn run_one(args: &ExtractArgs, path: &Path) -> anyhow::Result<ExitCode> {
    let bytes = pages::read_page(path)?;
    let mut ex = args.extractor()?;
    let text = if args.explain {
        explain::explain(&mut ex, &bytes)
    } else {
        page_text(&mut ex, &bytes, args.format(Format::Txt))
    };
    pages::print_page(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `--html-dir DIR --out-dir OUT`: every page's text to `OUT/<relative path>.<ext>`.
fn run_dir(args: &ExtractArgs, dir: &Path, out_dir: &Path) -> anyhow::Result<ExitCode> {
    let builder = args.builder()?.charset(args.charset_mode());
    let format = args.format(Format::Txt);
    let threads = crate::threads(args.threads);
    let done = if args.dump_blocks {
        pages::run_with(
            dir,
            out_dir,
            "blocks.tsv",
            &builder,
            threads,
            &explain::dump,
        )?
    } else {
        pages::run(dir, out_dir, format, &builder, threads)?
    };
    eprintln!("crawlsift extract: {}", done.summary(out_dir));
    // 1 when a page could not be read or its text not written.
    let failed = done.failed + done.unreadable > 0;
    Ok(ExitCode::from(if failed { crate::EXIT_FATAL } else { 0 }))
}
