//! `smg search`, `smg context`, `smg expand` and `smg bench locomo`.

use std::path::Path;

use serde_json::json;
use smg_engine::eval::{locomo, BUDGETS, RANKS};
use smg_engine::search::{display, prompt, Hit, Retriever};

use super::Context;
use crate::cli::{ContextArgs, SearchArgs};
use crate::io::{load, write_stdout};
use crate::Outcome;

fn open(
    file: &Path,
    ctx: &Context,
) -> Result<(smg_format::Document, Retriever), smg_engine::Error> {
    let doc = load(file, ctx)?.doc;
    let retriever = Retriever::new(&doc, &ctx.limits)?;
    Ok((doc, retriever))
}

fn hit_json(h: &Hit) -> serde_json::Value {
    let t = &h.turn;
    json!({
        "turn": t.turn, "score": (h.score * 1e4).round() / 1e4, "speaker": t.speaker, "role": t.role,
        "content": t.content, "timestamp": t.timestamp, "segment": h.segment,
        "provenance": {"conversationId": t.conversation_id, "sessionId": t.session_id, "messageId": t.message_id},
    })
}

pub(crate) fn search(args: &SearchArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let (_, retriever) = open(&args.file, ctx)?;
    let hits = retriever.search(&args.query, args.k);
    let out = if args.json {
        format!(
            "{}\n",
            json!({"query": args.query, "hits": hits.iter().map(hit_json).collect::<Vec<_>>()})
        )
    } else {
        hits.iter()
            .map(|h| {
                let when = h.turn.timestamp.as_deref().unwrap_or("-");
                format!(
                    "{:>8.3}  turn {} ({when}) {}\n",
                    h.score,
                    h.turn.turn,
                    crate::commands::retrieve::line(&display(&h.turn))
                )
            })
            .collect()
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

/// One line of at most 160 characters.
fn line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 160 {
        flat
    } else {
        format!("{}…", flat.chars().take(159).collect::<String>())
    }
}

pub(crate) fn context(args: &ContextArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let (doc, retriever) = open(&args.file, ctx)?;
    let p = prompt(&doc, &retriever, &args.query, args.budget);
    let out = if args.json {
        let items: Vec<serde_json::Value> = p
            .items
            .iter()
            .map(|h| {
                let mut v = hit_json(h);
                v["type"] = json!("turn");
                v
            })
            .collect();
        format!(
            "{}\n",
            json!({
                "query": args.query, "budget": args.budget, "tokens": p.tokens,
                "summary": p.summary, "goals": p.goals, "items": items, "cards": p.cards,
                "artifacts": p.artifacts.iter().map(|(id, v)| json!({"artifact": id, "version": v})).collect::<Vec<_>>(),
                "warnings": p.warnings,
            })
        )
    } else {
        p.text
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn expand(
    file: &Path,
    segment: &str,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let (doc, retriever) = open(file, ctx)?;
    let out: String = retriever
        .expand(&doc, segment)?
        .iter()
        .map(|t| format!("{}\n", display(t)))
        .collect();
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn query(
    file: &Path,
    text: &str,
    as_json: bool,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let parsed = smg_engine::query::parse(text)?;
    let doc = load(file, ctx)?.doc;
    let nodes = smg_engine::query::run(&doc, &parsed);
    let out = if as_json {
        format!("{}\n", serde_json::to_value(&nodes).unwrap_or_default())
    } else {
        nodes
            .iter()
            .map(|n| {
                format!(
                    "{}  {}  {}  importance {}  {}\n",
                    n.id,
                    n.kind,
                    line(n.label.as_deref().unwrap_or("")),
                    n.importance.map_or("-".into(), |i| format!("{i:.3}")),
                    n.timestamp.as_deref().unwrap_or("-"),
                )
            })
            .collect()
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn bench_locomo(dir: &Path, as_json: bool) -> Result<Outcome, smg_engine::Error> {
    let r = locomo(dir)?;
    let ms = |p: f64| r.percentile(p).as_secs_f64() * 1e3;
    let mut out = String::new();
    if as_json {
        out = format!(
            "{}\n",
            json!({
                "files": r.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
                "questions": r.questions,
                "recall": RANKS.iter().zip(r.recall).map(|(k, v)| (format!("R@{k}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "rtok": BUDGETS.iter().zip(r.rtok).map(|(b, v)| (format!("Rtok{b}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "latencyMs": {"p50": ms(50.0), "p95": ms(95.0), "p99": ms(99.0)},
            })
        );
    } else {
        out.push_str(&format!(
            "{} files, {} questions\n",
            r.files.len(),
            r.questions
        ));
        out.push_str(&format!(
            "search latency: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms\n",
            ms(50.0),
            ms(95.0),
            ms(99.0)
        ));
    }
    let summary: Vec<String> = RANKS
        .iter()
        .zip(r.recall)
        .map(|(k, v)| format!("R@{k}={v:.3}"))
        .chain(
            BUDGETS
                .iter()
                .zip(r.rtok)
                .map(|(b, v)| format!("Rtok{b}={v:.3}")),
        )
        .collect();
    out.push_str(&summary.join(" "));
    out.push('\n');
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}
