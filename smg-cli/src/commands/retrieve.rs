//! `smg search`, `smg context`, `smg expand` and `smg bench locomo`.

use std::path::Path;

use serde_json::json;
use smg_engine::eval::{locomo, LocomoOptions, BUDGETS, RANKS};
use smg_engine::search::{
    display, has_search_index, open_file, with_search_index, Item, Network, QueryVector, Retriever,
    SearchOptions,
};

use super::merge::load_indexed;
use crate::cli::{
    ContextArgs, ExpandArgs, LinksArg, ModelArg, SealedArg, SearchArgs, TokenizerArg,
};
use crate::io::Context;
use crate::io::{is_stdio, load, load_bytes, read_input, save_indexed, write_output, write_stdout};
use crate::Outcome;

/// The memory in `file` for retrieval (search, context, expand): a packed file with a
/// stored search index by the index alone, turns read from disk when needed; any
/// other by reading it all.
///
/// With a seal passphrase, the whole file is read and the sections it opens are
/// unsealed in memory: a stored index holds none of their words.
fn retriever(
    file: &Path,
    sealed: &SealedArg,
    ctx: &Context,
) -> Result<Retriever, smg_engine::Error> {
    if sealed.passphrase_file.is_some() {
        return Retriever::new(&unsealed(file, sealed, ctx)?, &ctx.limits);
    }
    if !is_stdio(file) {
        if let Some(r) = Retriever::open_packed(file, &ctx.limits)? {
            return Ok(r);
        }
    }
    let bytes = read_input(file)?;
    let doc = load_bytes(&bytes, ctx)?.doc;
    let retriever = Retriever::open(&bytes, &doc, &ctx.limits)?;
    if !retriever.used_stored_index() && has_search_index(&bytes) {
        eprintln!(
            "smg: warning: {} stores a search index of another version of smg, or one \
             that does not match its turns: searched by an index made in memory \
             (`smg index {0}` stores a current one; so does the next write)",
            file.display()
        );
    }
    Ok(retriever)
}

/// The memory in `file` and, unless `--no-links`, every file its links reach (spec
/// §4.1), each opened once: an encrypted one with its own passphrase
/// (`--link-passphrase-file`, `SMG_LINK_PASSPHRASE_<NAME>`), sealed sections of linked
/// files left sealed. What cannot be followed is a warning of the network's.
fn network(
    file: &Path,
    sealed: &SealedArg,
    links: &LinksArg,
    ctx: &Context,
) -> Result<Network, smg_engine::Error> {
    let root = retriever(file, sealed, ctx)?;
    if links.no_links || is_stdio(file) {
        return Ok(Network::single(file, root));
    }
    let open = |path: &Path, name: &str| {
        let pass = crate::secret::link_passphrase(&links.passphrases, name)?;
        open_file(path, &ctx.limits, pass.as_deref().map(Vec::as_slice))
    };
    Ok(Network::open(file, root, &open))
}

/// Say on standard error what the network could not follow.
fn warn_links(net: &Network) {
    for w in net.warnings() {
        eprintln!("smg: warning: {w}");
    }
}

/// The ids of what was found in the file asked (what `--track` records there).
fn own<'a>(
    found: impl Iterator<Item = (&'a Option<smg_engine::search::FileRef>, Option<String>)>,
) -> Vec<String> {
    found
        .filter(|(file, _)| file.as_ref().is_none_or(|f| f.name.is_none()))
        .filter_map(|(_, id)| id)
        .collect()
}

/// The document in `file`, its sealed sections opened in memory when a seal
/// passphrase is given.
pub(crate) fn unsealed(
    file: &Path,
    sealed: &SealedArg,
    ctx: &Context,
) -> Result<smg_format::Document, smg_engine::Error> {
    let mut doc = load(file, ctx)?.doc;
    sealed.open(&mut doc)?;
    Ok(doc)
}

/// Record the retrieval of `ids` in `file` now (`--track`), writing it back as it was
/// (its search index made again when it had one).
fn track(
    file: &Path,
    mut ids: Vec<String>,
    by: Option<&str>,
    ctx: &Context,
) -> Result<(), smg_engine::Error> {
    if is_stdio(file) {
        let why = "--track records in the file: give a file, not -".to_string();
        return Err(smg_format::Error::InvalidArgument(why).into());
    }
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        return Ok(());
    }
    let (mut loaded, indexed) = load_indexed(file, ctx)?;
    let now = smg_format::model::Timestamp::now();
    let list: Vec<&str> = ids.iter().map(String::as_str).collect();
    smg_engine::curate::record_access(&mut loaded.doc, &list, &now, by)?;
    save_indexed(file, loaded, indexed, &ctx.limits)
}

/// `smg index FILE`: store the search index in a packed file.
pub(crate) fn index(
    file: &Path,
    as_json: bool,
    ctx: &Context,
) -> Result<Outcome, smg_engine::Error> {
    let before = read_input(file)?;
    let working = super::working::Working::new(format!("indexing {}", file.display()));
    let after = with_search_index(&before, &ctx.limits);
    drop(working);
    let after = after?;
    write_output(file, &after)?;
    let change = after.len() as i64 - before.len() as i64;
    let out = if as_json {
        format!(
            "{}\n",
            json!({"file": file.display().to_string(), "bytesBefore": before.len(), "bytesAfter": after.len()})
        )
    } else {
        format!(
            "search index stored in {}: {} → {} bytes ({change:+})\n",
            file.display(),
            before.len(),
            after.len()
        )
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

/// A query vector file: `{"model": NAME, "vector": [numbers]}`.
fn query_vector(path: &Path) -> Result<QueryVector, smg_engine::Error> {
    QueryVector::from_json(&read_input(path)?).map_err(|e| match e {
        smg_engine::Error::Vector(detail) => {
            smg_engine::Error::Vector(format!("{}: {detail}", path.display()))
        }
        e => e,
    })
}

pub(crate) fn search(args: &SearchArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let mut options = SearchOptions::new(args.k);
    options.exact = args.exact;
    options.period = args.period.period()?;
    options.vector = match &args.vector {
        Some(path) => Some(query_vector(path)?),
        None => super::embed::query_of(&args.model, &args.query)?,
    };
    let net = network(&args.file, &args.sealed, &args.links, ctx)?;
    let found = net.search(&args.query, &options)?;
    if args.track {
        let ids = found.turns.iter().chain(&found.nodes).map(|f| {
            let id = match &f.item {
                Item::Node { id, .. } => Some(id.clone()),
                Item::Turn { segment, .. } => segment.clone(),
                _ => None,
            };
            (&f.file, id)
        });
        track(&args.file, own(ids), args.by.as_deref(), ctx)?;
    }
    let out = if args.json {
        format!("{}\n", found.to_json(&args.query))
    } else {
        let mut out: String = found
            .turns
            .iter()
            .map(|f| format!("{}\n", f.to_line(160)))
            .collect();
        if !found.nodes.is_empty() {
            out.push_str("memory nodes:\n");
            out.extend(found.nodes.iter().map(|f| format!("{}\n", f.to_line(160))));
        }
        for w in &found.warnings {
            eprintln!("smg: warning: {w}");
        }
        out
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn context(args: &ContextArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let period = args.period.period()?;
    let vector = super::embed::query_of(&args.model, &args.query)?;
    let mut net = network(&args.file, &args.sealed, &args.links, ctx)?;
    net.set_tokens(args.tokenizer.tokens());
    let p = net.prompt(&args.query, vector.as_ref(), args.budget, &period)?;
    if args.track {
        let ids = p.items.iter().map(|h| (&h.file, h.segment.clone()));
        track(&args.file, own(ids), args.by.as_deref(), ctx)?;
    }
    let out = if args.json {
        format!("{}\n", p.to_json(&args.query, args.budget))
    } else {
        warn_links(&net);
        p.text
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn expand(args: &ExpandArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let net = network(&args.file, &args.sealed, &args.links, ctx)?;
    warn_links(&net);
    let (file, turns) = net.expand(&args.segment, args.link.as_deref())?;
    if let Some(name) = &file.name {
        eprintln!(
            "smg: segment {} is in the linked file `{name}` ({})",
            args.segment, file.path
        );
    }
    let out: String = turns.iter().map(|t| format!("{}\n", display(t))).collect();
    if args.track && file.name.is_none() {
        track(
            &args.file,
            vec![args.segment.clone()],
            args.by.as_deref(),
            ctx,
        )?;
    }
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

/// `R@5=0.704`-style figures, one per `k`.
fn figures(name: &str, ks: &[usize; 3], values: [f64; 3]) -> Vec<String> {
    ks.iter()
        .zip(values)
        .map(|(k, v)| format!("{name}{k}={v:.3}"))
        .collect()
}

/// Where `smg bench locomo` writes.
pub(crate) struct LocomoOut<'a> {
    /// The summary as JSON.
    pub(crate) json: bool,
    /// Each question's outcome, a JSON line each.
    pub(crate) questions: Option<&'a Path>,
    /// Leave-one-out folds instead ([`super::folds`]).
    pub(crate) leave_one_out: bool,
}

pub(crate) fn bench_locomo(
    dir: &Path,
    curate_at: Option<&str>,
    model: &ModelArg,
    tokenizer: &TokenizerArg,
    out_to: &LocomoOut<'_>,
) -> Result<Outcome, smg_engine::Error> {
    let as_json = out_to.json;
    let model = super::embed::load(model)?;
    let mut options = LocomoOptions::default();
    let curate_at = super::time_arg("--curate-at", curate_at)?;
    options.curate_at = curate_at.as_ref();
    options.embedder = model.as_ref().map(|m| m as _);
    options.tokens = tokenizer.tokens();
    let read = |name: &str, bytes: Vec<u8>| {
        smg_import::read(
            smg_import::Input::bytes(name, bytes),
            smg_import::Format::Locomo,
            false,
        )
    };
    if out_to.leave_one_out {
        return super::folds::run(dir, &read, &options, as_json);
    }
    let r = locomo(dir, &read, &options)?;
    let ms = |p: f64| r.percentile(p).as_secs_f64() * 1e3;
    let mut out = String::new();
    if as_json {
        out = format!(
            "{}\n",
            json!({
                "files": r.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
                "questions": r.questions,
                "model": r.model,
                "tokenizer": tokenizer.tokens().name(),
                "recall": RANKS.iter().zip(r.recall).map(|(k, v)| (format!("R@{k}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "rtok": BUDGETS.iter().zip(r.rtok).map(|(b, v)| (format!("Rtok{b}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "searchRecall": RANKS.iter().zip(r.search_recall).map(|(k, v)| (format!("R@{k}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "nodeRecall": RANKS.iter().zip(r.node_recall).map(|(k, v)| (format!("R@{k}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                "observations": r.labelled.map(|l| json!({
                    "nodes": l.nodes, "nodesFromObservedTurns": l.nodes_labelled, "precision": l.precision(),
                    "observedTurns": l.turns, "observedTurnsDrawn": l.turns_drawn, "recall": l.recall(),
                })),
                "context": {
                    "rtok": BUDGETS.iter().zip(r.context_rtok).map(|(b, v)| (format!("Rtok{b}"), json!(v))).collect::<serde_json::Map<_, _>>(),
                    "medianTokensOf1000": r.median_context_tokens(),
                },
                "latencyMs": {"p50": ms(50.0), "p95": ms(95.0), "p99": ms(99.0)},
            })
        );
    } else {
        out.push_str(&format!(
            "{} files, {} questions; {}\n",
            r.files.len(),
            r.questions,
            r.model
                .as_deref()
                .map_or("words only (no --model)".into(), |m| format!(
                    "embeddings by {m}"
                ))
        ));
        out.push_str(&format!(
            "search latency: p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms\n",
            ms(50.0),
            ms(95.0),
            ms(99.0)
        ));
        out.push_str(&format!(
            "turns smg search returns: {}\n",
            figures("R@", &RANKS, r.search_recall).join(" ")
        ));
        out.push_str(&format!(
            "memory nodes (smg search, through their provenance): {}\n",
            figures("R@", &RANKS, r.node_recall).join(" ")
        ));
        if let Some(l) = r.labelled {
            out.push_str(&format!(
                "memory and decision nodes against LoCoMo's observations: precision {:.3} ({} of {} nodes drawn from an observed turn), recall {:.3} ({} of {} observed turns)\n",
                l.precision(),
                l.nodes_labelled,
                l.nodes,
                l.recall(),
                l.turns_drawn,
                l.turns
            ));
        }
        out.push_str(&format!(
            "smg context (summary, goals, dated turns): {}; of 1000 tokens ({}), median {} used\n",
            figures("Rtok", &BUDGETS, r.context_rtok).join(" "),
            tokenizer.tokens().name(),
            r.median_context_tokens()
        ));
    }
    let mut summary = figures("R@", &RANKS, r.recall);
    summary.extend(figures("Rtok", &BUDGETS, r.rtok));
    out.push_str(&summary.join(" "));
    out.push('\n');
    match out_to.questions {
        // The lines own standard output; the summary is still there to read.
        Some(path) if is_stdio(path) => {
            write_stdout(&question_lines(&r.asked))?;
            eprint!("{out}");
        }
        Some(path) => {
            write_output(path, &question_lines(&r.asked))?;
            write_stdout(out.as_bytes())?;
        }
        None => write_stdout(out.as_bytes())?,
    }
    Ok(Outcome::Success)
}

/// `smg bench locomo --questions`: a JSON object a line for each question asked.
fn question_lines(asked: &[smg_engine::eval::Asked]) -> Vec<u8> {
    let mut out = Vec::new();
    for a in asked {
        let line = json!({
            "file": a.file.display().to_string(),
            "question": a.question,
            "evidence": a.evidence,
            "ranked": a.ranked,
            "words": a.words,
            "meaning": a.meaning,
            "shown": BUDGETS.iter().zip(a.shown).map(|(b, n)| (b.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        });
        out.extend_from_slice(line.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}
