//! `smg context --tokenizer`: the budget counted as the model counts it, and filled.

use crate::common::{locomo_files, ok};
use serde_json::Value;

#[test]
fn a_bpe_budget_is_kept_and_filled() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = locomo_files()[0].to_str().unwrap().to_string();
    ok(
        &["ingest", "-q", "--from", "locomo", "-o", "m.smg", &file],
        d,
    );
    let question = "When did Caroline go to the LGBTQ support group?";
    for (tokenizer, name) in [("cl100k", "cl100k"), ("o200k", "o200k")] {
        let bpe = smg_embed::bpe::tokens(name).unwrap();
        for budget in [300, 1000, 4000] {
            let b = budget.to_string();
            let out: Value = serde_json::from_str(&ok(
                &[
                    "context",
                    "m.smg",
                    question,
                    "--json",
                    "--budget",
                    &b,
                    "--tokenizer",
                    tokenizer,
                ],
                d,
            ))
            .unwrap();
            let text = out["text"].as_str().unwrap();
            let tokens = out["tokens"].as_u64().unwrap() as usize;
            assert_eq!(tokens, bpe.count(text), "{tokenizer} {budget}");
            assert!(tokens <= budget, "{tokenizer} {budget}: {tokens}");
            // Within 3 % where turns are small beside the budget: the memory has
            // far more than it can show.
            if budget >= 1000 {
                assert!(
                    tokens * 100 >= budget * 97,
                    "{tokenizer} {budget}: {tokens}"
                );
            }
        }
    }
    let chars: Value = serde_json::from_str(&ok(
        &["context", "m.smg", question, "--json", "--budget", "1000"],
        d,
    ))
    .unwrap();
    let text = chars["text"].as_str().unwrap();
    assert_eq!(
        chars["tokens"].as_u64().unwrap() as usize,
        text.chars().count().div_ceil(4)
    );
}
