//! A prompt-ready memory context that fills a token budget. Working memory and
//! artifacts take at most the shares SMG §9.3 gives them of 8,000 tokens (2,000 each),
//! scaled to the budget; everything else, and what they leave unused, goes to the
//! semantic context (the turns that answer the query). The budget is the context's
//! own: the caller's system prompt and safety margin are outside it (SMG §9.3 counts
//! them in its 8,000), so a context of B tokens uses B, not B less a margin.
//!
//! Tokens are counted as characters / 4 of the text, line breaks included (close to
//! BPE tokenizers on English prose), unless the retriever was given a tokenizer
//! ([`Retriever::set_tokens`]).

use smg_format::{vault::rebuild_version, Document};

use super::{Hit, Retriever, Tokens};
use crate::text::clip;

/// Most of the budget working memory and artifacts take, of [`WHOLE`] (SMG §9.3).
const WORKING: usize = 2000;
const ARTIFACTS: usize = 2000;
const WHOLE: usize = 8000;

/// What `smg context` gives a model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Prompt {
    /// The text to put in the prompt.
    pub text: String,
    /// Its size in tokens (as the retriever counts them).
    pub tokens: usize,
    /// The working memory's summary, when it has one.
    pub summary: Option<String>,
    /// Current goals shown.
    pub goals: Vec<String>,
    /// The turns shown, best first.
    pub items: Vec<Hit>,
    /// Reference cards for relevant segments left out.
    pub cards: Vec<String>,
    /// Artifacts shown whole: (id, version).
    pub artifacts: Vec<(String, u64)>,
    /// What the caller should know: nothing matched, a part did not fit.
    pub warnings: Vec<String>,
}

impl Prompt {
    /// The context pack as JSON (`smg context --json`, the C ABI): the query and
    /// budget asked for, and every field of the prompt.
    pub fn to_json(&self, query: &str, budget: usize) -> serde_json::Value {
        serde_json::json!({
            "query": query, "budget": budget, "text": self.text, "tokens": self.tokens,
            "summary": self.summary, "goals": self.goals,
            "items": self.items.iter().map(Hit::to_json).collect::<Vec<_>>(), "cards": self.cards,
            "artifacts": self.artifacts.iter().map(|(id, v)| serde_json::json!({"artifact": id, "version": v})).collect::<Vec<_>>(),
            "warnings": self.warnings,
        })
    }
}

/// What a prompt takes from a memory besides its turns: working memory's summary and
/// goals, and its active artifacts (newest version). Made once when the memory is
/// indexed, and stored with a search index, so that a prompt needs no document.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PromptMemory {
    summary: Option<String>,
    goals: Vec<String>,
    artifacts: Vec<ActiveArtifact>,
    /// The memory's links (spec §4.1), which a network follows.
    pub(crate) links: Vec<Linked>,
}

/// What following a link needs of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Linked {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) bytes: Option<u64>,
}

impl Linked {
    /// The links recorded in `doc`.
    pub(crate) fn of(doc: &Document) -> Vec<Linked> {
        let links = doc.metadata.links.iter().flatten();
        links
            .map(|l| Linked {
                name: l.name.as_str().to_string(),
                path: l.path.as_str().to_string(),
                bytes: l.bytes,
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct ActiveArtifact {
    id: String,
    name: String,
    version: u64,
    /// `None` when the version could not be rebuilt.
    content: Option<String>,
}

impl PromptMemory {
    pub(crate) fn of(doc: &Document) -> Self {
        let wm = doc.working_memory.as_ref();
        let vault = doc
            .artifact_vault
            .as_ref()
            .and_then(|v| v.artifacts.as_ref());
        let artifacts = wm
            .iter()
            .flat_map(|w| w.active_artifacts.iter().flatten())
            .filter_map(|id| {
                let art = vault?.get(id)?;
                let version = art.versions.last().v.get();
                Some(ActiveArtifact {
                    id: id.clone(),
                    name: art.filename.clone().unwrap_or_else(|| id.clone()),
                    version,
                    content: rebuild_version(id, art, version).ok(),
                })
            })
            .collect();
        PromptMemory {
            summary: wm.and_then(|w| w.summary.clone()),
            goals: wm.and_then(|w| w.current_goals.clone()).unwrap_or_default(),
            artifacts,
            links: Linked::of(doc),
        }
    }
}

/// Appends lines while they fit a number of tokens (kept in the counter's units).
struct Part<'a> {
    text: String,
    room: usize,
    tokens: &'a Tokens,
}

impl<'a> Part<'a> {
    fn new(budget: usize, tokens: &'a Tokens) -> Self {
        Part {
            text: String::new(),
            room: tokens.room(budget),
            tokens,
        }
    }

    fn push(&mut self, line: &str) -> bool {
        let cost = self.tokens.line(line);
        if cost > self.room {
            return false;
        }
        self.room -= cost;
        self.text.push_str(line);
        self.text.push('\n');
        true
    }

    fn left(&self) -> usize {
        self.tokens.whole_tokens(self.room)
    }
}

/// Build the context for `query` within `budget` tokens from the memory `retriever`
/// was opened on; `vector`, the query's embedding, ranks turns as in
/// [`Retriever::rank`]. Only turns whose time falls in `period` are taken; working
/// memory (the summary, goals and artifacts in use) is the memory's present and is
/// kept whatever the period.
pub fn prompt(
    retriever: &Retriever,
    query: &str,
    vector: Option<&super::QueryVector>,
    budget: usize,
    period: &super::Period,
) -> crate::Result<Prompt> {
    compose(
        retriever.prompt_memory(),
        retriever.tokens(),
        budget,
        |room| retriever.context(query, vector, room, period),
    )
}

/// The prompt of `memory`'s working memory and artifacts and the turns `context`
/// packs into the room they leave of `budget` (counted by `tokens`).
pub(crate) fn compose(
    memory: &PromptMemory,
    tokens: &Tokens,
    budget: usize,
    context: impl FnOnce(usize) -> crate::Result<super::ContextPack>,
) -> crate::Result<Prompt> {
    let share = |part: usize| budget.saturating_mul(part) / WHOLE;
    let usable = budget;
    let mut out = Prompt {
        text: String::new(),
        tokens: 0,
        summary: None,
        goals: Vec::new(),
        items: Vec::new(),
        cards: Vec::new(),
        artifacts: Vec::new(),
        warnings: Vec::new(),
    };
    let mut working = Part::new(share(WORKING).min(usable), tokens);
    if let Some(s) = &memory.summary {
        if working.push(&format!("Memory summary: {s}")) {
            out.summary = Some(s.clone());
        } else {
            out.warnings
                .push("the memory summary did not fit the budget".into());
        }
    }
    for g in &memory.goals {
        if working.push(&format!("Goal: {g}")) {
            out.goals.push(g.clone());
        }
    }
    let mut artifacts = Part::new(
        share(ARTIFACTS).min(usable.saturating_sub(working_used(&working, usable))),
        tokens,
    );
    add_artifacts(memory, &mut artifacts, &mut out);
    let used = tokens.count(&format!("{}{}", working.text, artifacts.text));
    // One token for the line breaks that join the parts.
    let pack = context(usable.saturating_sub(used + 1))?;
    if pack.items.is_empty() {
        out.warnings
            .push("nothing in memory matches the query".into());
    }
    out.text = [
        working.text.as_str(),
        pack.text.as_str(),
        artifacts.text.as_str(),
    ]
    .into_iter()
    .filter(|t| !t.is_empty())
    .collect::<Vec<_>>()
    .join("\n");
    out.tokens = tokens.count(&out.text);
    out.items = pack.items;
    out.cards = pack.cards;
    Ok(out)
}

fn working_used(part: &Part, usable: usize) -> usize {
    usable.min(part.tokens.count(&part.text))
}

/// The artifacts in use (working memory's `activeArtifacts`), newest version, whole
/// when they fit, else as a reference line.
fn add_artifacts(memory: &PromptMemory, part: &mut Part, out: &mut Prompt) {
    for a in &memory.artifacts {
        let (id, name, version) = (&a.id, &a.name, a.version);
        let Some(content) = &a.content else {
            out.warnings
                .push(format!("artifact {id} could not be rebuilt"));
            continue;
        };
        let fence = if content.contains("```") {
            "~~~~"
        } else {
            "```"
        };
        let whole = format!(
            "Artifact {name} ({id} v{version}):\n{fence}\n{}\n{fence}",
            content.trim_end()
        );
        if part.push(&whole) {
            out.artifacts.push((id.clone(), version));
        } else if part.left() > 0 {
            part.push(&format!(
                "[artifact {id} {} v{version}] (smg vault show FILE {id})",
                clip(name, 40)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{ingest, IngestOptions, Silent};
    use crate::search::Period;
    use smg_format::Limits;

    fn memory() -> Retriever {
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/ingest/sample-chat.jsonl");
        let input = crate::ingest::testing::jsonl(std::fs::read(sample).unwrap());
        let mut doc = Document::new(smg_format::model::Timestamp::from_static(
            "1970-01-01T00:00:00Z",
        ));
        ingest(&mut doc, vec![input], &IngestOptions::default(), &Silent).unwrap();
        Retriever::new(&doc, &Limits::default()).unwrap()
    }

    #[test]
    fn every_budget_is_kept_and_parts_come_in_order() {
        let r = memory();
        for budget in [0, 10, 100, 300, 1000, 8000, 1_000_000_000] {
            let p = prompt(&r, "stripe webhook secret", None, budget, &Period::ALL).unwrap();
            assert!(p.tokens <= budget, "{budget}: {} tokens", p.tokens);
            assert_eq!(p.tokens, p.text.chars().count().div_ceil(4));
        }
        let empty = prompt(&r, "stripe", None, 0, &Period::ALL).unwrap();
        assert!(empty.text.is_empty() && empty.items.is_empty());
        assert!(!empty.warnings.is_empty());
        let full = prompt(&r, "stripe webhook secret", None, 8000, &Period::ALL).unwrap();
        assert!(full.text.starts_with("Memory summary: "));
        assert!(!full.items.is_empty());
        assert!(!full.artifacts.is_empty(), "{full:?}");
        assert!(full.text.contains("src/webhook.rs"));
        let none = prompt(&r, "zebra quantum", None, 8000, &Period::ALL).unwrap();
        assert!(none.warnings.iter().any(|w| w.contains("nothing")));
    }
}
