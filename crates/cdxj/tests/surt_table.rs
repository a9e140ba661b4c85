//! Our SURT keys against the Python `surt` package's, on the hostile URLs of
//! `tests/data/surt_table.jsonl` (made by `scripts/surt_table.py`, which lists them).

use crawlsift_cdxj::surt::surt;

#[test]
fn keys_match_python_surt() {
    let table = include_str!("data/surt_table.jsonl");
    let mut wrong = Vec::new();
    let mut n = 0;
    for line in table.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("table line is JSON");
        let (url, key) = (v["url"].as_str().unwrap(), v["key"].as_str().unwrap());
        n += 1;
        let ours = surt(url);
        if ours != key {
            wrong.push(format!("{url:?}: python {key:?}, ours {ours:?}"));
        }
    }
    assert!(n >= 100, "table has {n} URLs");
    assert!(
        wrong.is_empty(),
        "{} of {n} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
