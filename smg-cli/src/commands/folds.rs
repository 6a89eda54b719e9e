//! `smg bench locomo --leave-one-out`: each conversation measured with the tuning
//! chosen on the others, beside words alone and the tuning smg ships.

use std::path::Path;

use serde_json::{json, Value};
use smg_engine::eval::BUDGETS;
use smg_engine::eval::{locomo_folds, Fold, Folds, LocomoOptions, Measures, ReadConversation};
use smg_engine::search::Tuning;

use crate::io::write_stdout;
use crate::Outcome;

/// Shares of meaning tried.
const MEANING: [f64; 5] = [0.1, 0.2, 0.3, 0.4, 0.5];
/// Shares of the best word score from which word matches are kept whole
/// (infinity: none).
const KEEP: [f64; 5] = [0.0, 0.25, 0.5, 0.75, f64::INFINITY];

/// Every tuning tried: each share of meaning with each keep (words alone and the
/// default are added).
fn grid() -> Vec<Tuning> {
    MEANING
        .iter()
        .flat_map(|&m| KEEP.iter().map(move |&k| Tuning::new(m, k)))
        .collect()
}

pub(crate) fn run(
    dir: &Path,
    read: &ReadConversation,
    options: &LocomoOptions<'_>,
    as_json: bool,
) -> Result<Outcome, smg_engine::Error> {
    let folds = locomo_folds(dir, read, options, &grid())?;
    let out = if as_json {
        format!("{}\n", to_json(&folds))
    } else {
        table(&folds)
    };
    write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

fn tuning_json(t: &Tuning) -> Value {
    // Infinity is no JSON number: "none kept" is null.
    let keep = t.keep.is_finite().then_some(t.keep);
    json!({"meaning": t.meaning, "keep": keep, "floorRank": t.floor_rank})
}

fn measures_json(m: &Measures) -> Value {
    let context: serde_json::Map<String, Value> = BUDGETS
        .iter()
        .zip(m.context)
        .map(|(b, v)| (format!("Rtok{b}"), json!(v)))
        .collect();
    json!({"questions": m.questions, "R@10": m.recall, "context": context})
}

fn to_json(folds: &Folds) -> Value {
    let fold = |f: &Fold| {
        json!({
            "file": f.file.display().to_string(), "tuning": tuning_json(&f.tuning),
            "trained": f.trained, "tuned": measures_json(&f.tuned),
            "shipped": measures_json(&f.shipped), "words": measures_json(&f.words),
            "neverWorse": f.tuned.at_least(&f.words),
        })
    };
    json!({
        "model": folds.model,
        "grid": folds.grid.iter().map(tuning_json).collect::<Vec<_>>(),
        "chosen": tuning_json(&folds.chosen),
        "shippedIsChosen": folds.chosen == Tuning::default(),
        "folds": folds.folds.iter().map(fold).collect::<Vec<_>>(),
        "mean": {
            "tuned": measures_json(&folds.mean(|f| f.tuned)),
            "shipped": measures_json(&folds.mean(|f| f.shipped)),
            "words": measures_json(&folds.mean(|f| f.words)),
        },
        "neverWorse": folds.never_worse(),
        "table": folds.folds.iter().zip(&folds.table).map(|(f, row)| json!({
            "file": f.file.display().to_string(),
            "measures": row.iter().map(measures_json).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// `R@10 ctx500 ctx1000 ctx2000` of `m`.
fn row(m: &Measures) -> String {
    let context: Vec<String> = m.context.iter().map(|c| format!("{c:.3}")).collect();
    format!("{:.3} {}", m.recall, context.join(" "))
}

fn keep(t: &Tuning) -> String {
    if t.keep.is_finite() {
        format!("{:.2}", t.keep)
    } else {
        "none".into()
    }
}

fn table(folds: &Folds) -> String {
    let mut out = format!(
        "leave-one-out over {} conversations, embeddings by {}; {} tunings tried\n\
         each: R@10, then the evidence smg context shows at 500 / 1000 / 2000 tokens\n\
         the rule: of the tunings no worse than words alone on every other conversation, the best mean\n",
        folds.folds.len(),
        folds.model,
        folds.grid.len()
    );
    for f in &folds.folds {
        let name = f.file.file_name().unwrap_or_default().to_string_lossy();
        out.push_str(&format!(
            "{name}: chosen meaning {:.2}, kept whole from {} (score {:.3} on the others)\n  \
             tuned   {}\n  shipped {}\n  words   {}{}\n",
            f.tuning.meaning,
            keep(&f.tuning),
            f.trained,
            row(&f.tuned),
            row(&f.shipped),
            row(&f.words),
            if f.tuned.at_least(&f.words) {
                ""
            } else {
                "  (tuned is worse than words here)"
            }
        ));
    }
    let shipped = Tuning::default();
    out.push_str(&format!(
        "on every conversation the rule chooses meaning {:.2}, kept whole from {}; smg ranks with meaning {:.2}, kept whole from {}\n",
        folds.chosen.meaning,
        keep(&folds.chosen),
        shipped.meaning,
        keep(&shipped)
    ));
    out.push_str(&format!(
        "mean of folds:\n  tuned   {}\n  shipped {}\n  words   {}\nnever worse than words on every fold: {}\n",
        row(&folds.mean(|f| f.tuned)),
        row(&folds.mean(|f| f.shipped)),
        row(&folds.mean(|f| f.words)),
        if folds.never_worse() { "yes" } else { "no" }
    ));
    out
}
