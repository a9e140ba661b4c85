//! Compares whole-member gzip inflation with flate2 on zlib-rs (streaming `Decompress`, reused)
//! against libdeflate (`libdeflater`, one call per member) on the members of the given files.
//! `cargo run --release --example inflate_compare -- FILE.warc.gz...`; prints CPU-independent
//! wall time per pass, best of 3, alternating so machine load hits both alike.

use std::time::Instant;

use flate2::{Decompress, FlushDecompress, Status};

fn main() {
    let mut members: Vec<(Vec<u8>, usize)> = Vec::new();
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("readable file");
        let mut pos = 0;
        let mut d = Decompress::new(false);
        let mut buf = vec![0u8; 1 << 20];
        while pos + 18 <= data.len() {
            let hdr = match crawlsift_reader::gzip::parse_header(&data[pos..]) {
                crawlsift_reader::gzip::GzHeader::Ok(h) => h,
                _ => break,
            };
            d.reset(false);
            let start = pos;
            let mut p = pos + hdr;
            let mut out = 0usize;
            loop {
                let (i0, o0) = (d.total_in(), d.total_out());
                let st = d.decompress(&data[p..], &mut buf, FlushDecompress::None);
                p += (d.total_in() - i0) as usize;
                out += (d.total_out() - o0) as usize;
                match st {
                    Ok(Status::StreamEnd) => break,
                    Ok(_) if d.total_in() == i0 && d.total_out() == o0 => break,
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
            pos = p + 8;
            members.push((data[start..pos.min(data.len())].to_vec(), out));
        }
    }
    let total_out: usize = members.iter().map(|m| m.1).sum();
    let max_out = members.iter().map(|m| m.1).max().unwrap_or(0);
    println!("{} members, {} bytes inflated", members.len(), total_out);
    let mut out = vec![0u8; max_out.max(1)];
    let (mut best_z, mut best_l) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let t = Instant::now();
        let mut d = Decompress::new(false);
        let mut n = 0usize;
        for (m, _) in &members {
            let h = match crawlsift_reader::gzip::parse_header(m) {
                crawlsift_reader::gzip::GzHeader::Ok(h) => h,
                _ => continue,
            };
            d.reset(false);
            let _ = d.decompress(&m[h..], &mut out, FlushDecompress::Finish);
            n += d.total_out() as usize;
        }
        best_z = best_z.min(t.elapsed().as_secs_f64());
        assert_eq!(n, total_out);
        let t = Instant::now();
        let mut l = libdeflater::Decompressor::new();
        let mut n = 0usize;
        for (m, _) in &members {
            n += l.gzip_decompress(m, &mut out).unwrap_or(0);
        }
        best_l = best_l.min(t.elapsed().as_secs_f64());
        assert_eq!(n, total_out);
    }
    println!(
        "flate2/zlib-rs: {best_z:.3} s ({:.0} MB/s); libdeflate: {best_l:.3} s ({:.0} MB/s); libdeflate {:.2}x faster",
        total_out as f64 / best_z / 1e6,
        total_out as f64 / best_l / 1e6,
        best_z / best_l
    );
}
