//! `smg diff A B`: the semantic difference of two memory files.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::Path;

use serde_json::Value;
use smg_format::{
    diff::{diff, DocDiff, FieldChange},
    Error,
};

use crate::io::Context;
use crate::io::{load, write_stdout};
use crate::Outcome;

pub(crate) fn run(
    a: &Path,
    b: &Path,
    json: bool,
    stat: bool,
    ctx: &Context,
) -> Result<Outcome, Error> {
    let d = diff(&load(a, ctx)?.doc, &load(b, ctx)?.doc);
    let out = if json {
        format!("{}\n", serde_json::to_value(&d).unwrap_or_default())
    } else if stat {
        stats(&d)
    } else {
        text(&d, std::io::stdout().is_terminal())
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

fn stats(d: &DocDiff) -> String {
    format!(
        "nodes +{} -{} ~{}, edges +{} -{} ~{}, artifacts +{} -{}, versions +{}, turns +{} -{}, metadata ~{}, working memory ~{}, other sections ~{}\n",
        d.nodes_added.len(),
        d.nodes_removed.len(),
        d.nodes_changed.len(),
        d.edges_added.len(),
        d.edges_removed.len(),
        d.edges_changed.len(),
        d.artifacts_added.len(),
        d.artifacts_removed.len(),
        d.versions_added.len(),
        count(&d.turns_added),
        count(&d.turns_removed),
        d.metadata.len(),
        d.working_memory.len(),
        d.sections_changed.len(),
    )
}

fn count(ranges: &[(u64, u64)]) -> u64 {
    ranges.iter().map(|(a, b)| b - a + 1).sum()
}

fn short(v: &Option<Value>) -> String {
    let s = v.as_ref().map_or("(none)".to_string(), Value::to_string);
    if s.chars().count() > 70 {
        format!("{}…", s.chars().take(69).collect::<String>())
    } else {
        s
    }
}

/// Lines of `+`, `-` and `~`, coloured on a terminal.
fn text(d: &DocDiff, colour: bool) -> String {
    let paint = |code: &str, s: String| {
        if colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s
        }
    };
    let add = |s: String| paint("32", format!("+ {s}"));
    let del = |s: String| paint("31", format!("- {s}"));
    let chg = |s: String| paint("33", format!("~ {s}"));
    let changes = |c: &[FieldChange]| {
        c.iter()
            .map(|f| format!("{}: {} → {}", f.field, short(&f.before), short(&f.after)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut out = String::new();
    let mut line = |s: String| {
        let _ = writeln!(out, "{s}");
    };
    for f in &d.metadata {
        line(chg(format!(
            "metadata {}",
            changes(std::slice::from_ref(f))
        )));
    }
    for f in &d.working_memory {
        line(chg(format!(
            "working memory {}",
            changes(std::slice::from_ref(f))
        )));
    }
    d.nodes_added
        .iter()
        .for_each(|id| line(add(format!("node {id}"))));
    d.nodes_removed
        .iter()
        .for_each(|id| line(del(format!("node {id}"))));
    for (id, c) in &d.nodes_changed {
        line(chg(format!("node {id}: {}", changes(c))));
    }
    let edge = |(from, rel, to): &(String, String, String)| format!("edge {from} -{rel}-> {to}");
    d.edges_added.iter().for_each(|e| line(add(edge(e))));
    d.edges_removed.iter().for_each(|e| line(del(edge(e))));
    for (e, c) in &d.edges_changed {
        line(chg(format!("{}: {}", edge(e), changes(c))));
    }
    d.artifacts_added
        .iter()
        .for_each(|id| line(add(format!("artifact {id}"))));
    d.artifacts_removed
        .iter()
        .for_each(|id| line(del(format!("artifact {id}"))));
    for (id, v) in &d.versions_added {
        line(add(format!("artifact {id} version {v}")));
    }
    let span = |(a, b): &(u64, u64)| {
        if a == b {
            format!("{a}")
        } else {
            format!("{a}-{b}")
        }
    };
    d.turns_added
        .iter()
        .for_each(|r| line(add(format!("turns {}", span(r)))));
    d.turns_removed
        .iter()
        .for_each(|r| line(del(format!("turns {}", span(r)))));
    d.sections_changed
        .iter()
        .for_each(|s| line(chg(format!("section {s}"))));
    if out.is_empty() {
        out.push_str("no differences\n");
    }
    out
}
