//! `smg view` at 1,000 and 100,000 nodes: the page's size, the time `smg view` takes to
//! write it, and the time headless Chromium takes to show its graph — beside the
//! obvious alternative in the same run, a page that draws every node at once.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use smg_format::{Encoding, WriteOptions};

use crate::{kb, timed};

/// `node bench/view/render.mjs PAGE`: what the browser measured.
fn render(page: &Path, timeout_s: u64) -> Value {
    let out = Command::new("node")
        .arg("bench/view/render.mjs")
        .arg(page)
        .arg(timeout_s.to_string())
        .output()
        .expect("node runs");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("render.mjs: {}", String::from_utf8_lossy(&out.stderr)))
}

fn cell(v: &Value) -> String {
    match v.get("error") {
        Some(e) => format!(
            "not shown: {} (after {} ms)",
            e.as_str().unwrap_or(""),
            v["afterMs"]
        ),
        None => format!(
            "{} ms ({} ms in page), {} nodes drawn, heap {} MB; search: first {} ms, then {} ms",
            v["readyMs"], v["inPage"], v["drawn"], v["heapMB"], v["firstSearchMs"], v["searchMs"]
        ),
    }
}

pub(crate) fn run(sizes: &[usize], smg: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("bench dir");
    let dir = &std::path::absolute(dir).expect("a path");
    println!("| nodes (edges, turns, artifacts) | `smg view` | page | first render (top 300, default) | every node drawn at once (`--shown N`) |");
    println!("|---|---|---|---|---|");
    for &n in sizes {
        let doc = crate::generate::document_of_nodes(n, 29);
        let g = doc.semantic_graph.as_ref().expect("a graph");
        let (nodes, edges) = (g.nodes().len(), g.edges().len());
        let turns = doc.metadata.total_exchanges.unwrap_or(0);
        let artifacts = doc
            .artifact_vault
            .as_ref()
            .and_then(|v| v.artifacts.as_ref())
            .map_or(0, |a| a.len());
        let file = dir.join(format!("view-{n}.smg"));
        smg_format::write_file(&file, &doc, &WriteOptions::new(Encoding::Brotli)).expect("writes");
        drop(doc);
        let page = dir.join(format!("view-{n}.html"));
        let all = dir.join(format!("view-{n}-all.html"));
        let args = |out: &Path, shown: Option<usize>| {
            let mut a: Vec<std::ffi::OsString> =
                vec!["view".into(), file.clone().into(), "-o".into(), out.into()];
            if let Some(s) = shown {
                a.extend(["--shown".into(), s.to_string().into()]);
            }
            a
        };
        let mut a = args(&page, None);
        a.push("--json".into());
        let (wall, rss, out) = timed(
            smg,
            dir,
            &a.iter().map(|s| s.as_os_str()).collect::<Vec<&OsStr>>(),
        );
        let report: Value = serde_json::from_slice(&out).expect("smg view --json");
        let parts = &report["parts"];
        let part = |k: &str| kb(parts[k].as_u64().unwrap_or(0) as usize);
        let a = args(&all, Some(nodes));
        timed(
            smg,
            dir,
            &a.iter().map(|s| s.as_os_str()).collect::<Vec<&OsStr>>(),
        );
        let bytes = std::fs::metadata(&page).map_or(0, |m| m.len() as usize);
        let first = render(&page, 300);
        let every = render(&all, 300);
        println!(
            "| {nodes} ({edges}, {turns}, {artifacts}) | {:.2} s, {} MB max RSS | {}: graph {}, node fields {}, search index {}, vault {}, archive {}, code {} | {} | {} |",
            wall.as_secs_f64(),
            rss / 1000,
            kb(bytes),
            part("graph"),
            part("details"),
            part("index"),
            part("vault"),
            part("archive"),
            part("code"),
            cell(&first),
            cell(&every)
        );
        for p in [&file, &page, &all] {
            let _ = std::fs::remove_file(p);
        }
    }
}
