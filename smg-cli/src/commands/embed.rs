//! `smg embed`: a memory's turns and nodes embedded by a local model, or one query's
//! embedding printed; and the `--model DIR` every retrieval command takes.

use serde_json::json;
use smg_embed::Model;
use smg_engine::embed::{embed, query};
use smg_engine::search::QueryVector;

use super::merge::load_indexed;
use super::working::Bar;
use crate::cli::{EmbedArgs, ModelArg};
use crate::io::{save_indexed, write_stdout, Context};
use crate::Outcome;

/// The model `--model DIR` (or `SMG_MODEL`) names, loaded; `None` without one.
pub(crate) fn load(arg: &ModelArg) -> Result<Option<Model>, smg_engine::Error> {
    arg.dir
        .as_deref()
        .map(|dir| {
            Model::load(dir).map_err(|e| smg_engine::Error::Embedding {
                code: e.code(),
                detail: format!("model {}: {e}", dir.display()),
            })
        })
        .transpose()
}

/// `text` embedded by the model `arg` names, if it names one.
pub(crate) fn query_of(
    arg: &ModelArg,
    text: &str,
) -> Result<Option<QueryVector>, smg_engine::Error> {
    load(arg)?.map(|m| query(&m, text)).transpose()
}

pub(crate) fn run(args: &EmbedArgs, ctx: &Context) -> Result<Outcome, smg_engine::Error> {
    let Some(model) = load(&args.model)? else {
        let why = "smg embed needs a model: --model DIR (or SMG_MODEL)".to_string();
        return Err(smg_format::Error::InvalidArgument(why).into());
    };
    if let Some(text) = &args.query {
        let v = query(&model, text)?;
        let out = json!({"model": v.model, "vector": v.values});
        write_stdout(format!("{out}\n").as_bytes())?;
        return Ok(Outcome::Success);
    }
    let Some(file) = &args.file else {
        let why = "smg embed needs a memory file, or --query TEXT".to_string();
        return Err(smg_format::Error::InvalidArgument(why).into());
    };
    let (mut loaded, indexed) = load_indexed(file, ctx)?;
    let bar = Bar::new(args.quiet);
    let started = std::time::Instant::now();
    let done = embed(&mut loaded.doc, &model, args.replace, &ctx.limits, &bar)?;
    bar.done();
    let seconds = started.elapsed().as_secs_f64();
    save_indexed(file, loaded, indexed, &ctx.limits)?;
    let out = if args.json {
        json!({
            "file": file.display().to_string(), "model": done.model, "dimensions": done.dimensions,
            "turns": done.turns, "nodes": done.nodes, "kept": done.kept, "seconds": seconds,
        })
        .to_string()
    } else {
        format!(
            "{}: {} turns and {} nodes embedded by {} ({} dimensions, int8) in {seconds:.1} s; {} kept",
            file.display(),
            done.turns,
            done.nodes,
            done.model,
            done.dimensions,
            done.kept
        )
    };
    write_stdout(format!("{out}\n").as_bytes())?;
    Ok(Outcome::Success)
}
