//! Leave-one-out over LoCoMo conversations: for each conversation, the [`Tuning`]
//! that did best on the others, measured on it beside words alone. A change to how
//! turns are ranked is judged by these folds, never by fitting every conversation at
//! once: what is fitted to the conversations one has must carry to those one has not.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{files_of, share, shown, Asking, LocomoOptions, ReadConversation, BUDGETS};
use crate::error::Result;
use crate::search::{prompt, Period, QueryVector, Tuning};

/// What one ranking gives over some questions: means per question.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Measures {
    /// Questions asked.
    pub questions: usize,
    /// R@10: the share of a question's evidence among the ten best turns.
    pub recall: f64,
    /// The share of its evidence among the turns `smg context` shows, for each of
    /// [`BUDGETS`].
    pub context: [f64; 3],
}

impl Measures {
    /// What a tuning is chosen by: the mean of R@10 and the three context shares.
    pub fn score(&self) -> f64 {
        (self.recall + self.context.iter().sum::<f64>()) / 4.0
    }

    /// Whether every measure is at least `other`'s.
    pub fn at_least(&self, other: &Measures) -> bool {
        // Means of the same questions: what differs below this is rounding.
        const SAME: f64 = 1e-9;
        self.recall + SAME >= other.recall
            && self
                .context
                .iter()
                .zip(other.context)
                .all(|(a, b)| a + SAME >= b)
    }
}

/// The rule that chooses a tuning on some conversations: of the tunings that lower no
/// measure against words alone on any of them ([`Tuning::WORDS`] always does not),
/// the best [`Measures::score`] over their questions pooled; the first of equals.
fn choose(table: &[Vec<Sums>], words: &[Sums], on: &[usize], tried: &[Tuning]) -> (usize, f64) {
    let harmless = |t: usize| {
        tried[t] == Tuning::WORDS
            || on
                .iter()
                .all(|&f| table[f][t].mean().at_least(&words[f].mean()))
    };
    let pooled = |t: usize| {
        let mut sums = Sums::default();
        for &f in on {
            sums.add(&table[f][t]);
        }
        sums.mean().score()
    };
    (0..tried.len())
        .filter(|&t| harmless(t))
        .map(|t| (t, pooled(t)))
        .fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
}

/// One conversation left out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Fold {
    /// The conversation.
    pub file: PathBuf,
    /// The tuning that did best on the other conversations.
    pub tuning: Tuning,
    /// Its score ([`Measures::score`]) on them, their questions pooled.
    pub trained: f64,
    /// This conversation with that tuning and the model.
    pub tuned: Measures,
    /// …with [`Tuning::default`], what smg ranks with.
    pub shipped: Measures,
    /// …by words alone (no model).
    pub words: Measures,
}

/// Every fold of a leave-one-out run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Folds {
    /// The embedding model.
    pub model: String,
    /// The tunings tried, [`Tuning::default`] first, [`Tuning::WORDS`] among them.
    pub grid: Vec<Tuning>,
    /// The tuning the same rule chooses on every conversation: what smg should rank
    /// with ([`Tuning::default`] is kept equal to it).
    pub chosen: Tuning,
    /// One per conversation, in file order.
    pub folds: Vec<Fold>,
    /// Each conversation's measures (in file order) with each tuning of
    /// [`Folds::grid`], in its order.
    pub table: Vec<Vec<Measures>>,
}

impl Folds {
    /// The mean over folds (each conversation counts once) of what `of` picks.
    pub fn mean(&self, of: impl Fn(&Fold) -> Measures) -> Measures {
        let n = self.folds.len().max(1) as f64;
        let mut out = Measures::default();
        for f in &self.folds {
            let m = of(f);
            out.questions += m.questions;
            out.recall += m.recall / n;
            for (o, c) in out.context.iter_mut().zip(m.context) {
                *o += c / n;
            }
        }
        out
    }

    /// Whether, on every fold, meaning as tuned on the others is no worse than words
    /// alone in any measure.
    pub fn never_worse(&self) -> bool {
        self.folds.iter().all(|f| f.tuned.at_least(&f.words))
    }
}

/// Sums over questions, to be pooled across conversations.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    questions: usize,
    recall: f64,
    context: [f64; 3],
}

impl Sums {
    fn add(&mut self, other: &Sums) {
        self.questions += other.questions;
        self.recall += other.recall;
        for (a, b) in self.context.iter_mut().zip(other.context) {
            *a += b;
        }
    }

    fn mean(&self) -> Measures {
        let n = self.questions.max(1) as f64;
        Measures {
            questions: self.questions,
            recall: self.recall / n,
            context: self.context.map(|c| c / n),
        }
    }
}

/// Leave-one-out on every `*.json` file of `dir` (two at least), each read by `read`
/// and embedded by `run`'s model: every tuning of `grid` (with [`Tuning::default`]
/// and [`Tuning::WORDS`]) measured on every conversation, then for each conversation
/// the tuning the rule takes on the others (of the tunings no worse than words alone
/// on any of them, the best mean score), with its measures on that
/// conversation.
pub fn locomo_folds(
    dir: &Path,
    read: &ReadConversation,
    run: &LocomoOptions<'_>,
    grid: &[Tuning],
) -> Result<Folds> {
    let Some(embedder) = run.embedder else {
        return Err(invalid(
            "leave-one-out tunes how meaning joins words: it needs a model",
        ));
    };
    let files = files_of(dir)?;
    if files.len() < 2 {
        return Err(invalid(&format!(
            "leave-one-out needs two conversation files at least; {} has {}",
            dir.display(),
            files.len()
        )));
    }
    let mut tried = vec![Tuning::default()];
    for t in grid.iter().chain([&Tuning::WORDS]) {
        if !tried.contains(t) {
            tried.push(*t);
        }
    }
    let mut table: Vec<Vec<Sums>> = Vec::with_capacity(files.len());
    let mut words = Vec::with_capacity(files.len());
    for f in &files {
        let mut asking = Asking::new(f, read, run)?;
        let vectors = asking
            .questions
            .iter()
            .map(|(q, _)| crate::embed::query(embedder, q))
            .collect::<Result<Vec<_>>>()?;
        words.push(measure(&asking, None)?);
        let mut row = Vec::with_capacity(tried.len());
        for t in &tried {
            asking.retriever.set_tuning(*t);
            row.push(measure(&asking, Some(&vectors))?);
        }
        table.push(row);
    }
    let folds = (0..files.len())
        .map(|out| {
            let others: Vec<usize> = (0..files.len()).filter(|&f| f != out).collect();
            let (best, trained) = choose(&table, &words, &others, &tried);
            Fold {
                file: files[out].clone(),
                tuning: tried[best],
                trained,
                tuned: table[out][best].mean(),
                shipped: table[out][0].mean(),
                words: words[out].mean(),
            }
        })
        .collect();
    let all: Vec<usize> = (0..files.len()).collect();
    let chosen = tried[choose(&table, &words, &all, &tried).0];
    Ok(Folds {
        model: embedder.model().to_string(),
        grid: tried,
        chosen,
        folds,
        table: table
            .iter()
            .map(|row| row.iter().map(Sums::mean).collect())
            .collect(),
    })
}

/// R@10 and the context shares of every question of `asking`, the `i`th asked with
/// `vectors[i]`, or by words alone.
fn measure(asking: &Asking, vectors: Option<&[QueryVector]>) -> Result<Sums> {
    let retriever = &asking.retriever;
    let one = |(q, (question, listed)): (usize, &super::Question)| -> Result<Sums> {
        let vector = vectors.map(|v| &v[q]);
        let evidence: HashSet<&str> = listed.iter().map(String::as_str).collect();
        let ranked = retriever.rank(question, vector, &Period::ALL)?;
        let top: HashSet<&str> = ranked
            .iter()
            .take(10)
            .map(|(i, _)| asking.ids[*i].as_str())
            .collect();
        let mut sums = Sums {
            questions: 1,
            recall: share(&evidence, &top),
            ..Sums::default()
        };
        for (s, &b) in BUDGETS.iter().enumerate() {
            let context = prompt(retriever, question, vector, b, &Period::ALL)?;
            sums.context[s] = share(&evidence, &shown(&context.items));
        }
        Ok(sums)
    };
    // Questions side by side; summed in question order, so every run sums alike.
    let each: Vec<Sums> = asking
        .questions
        .par_iter()
        .enumerate()
        .map(one)
        .collect::<Result<_>>()?;
    let mut sums = Sums::default();
    for s in &each {
        sums.add(s);
    }
    Ok(sums)
}

fn invalid(detail: &str) -> crate::Error {
    smg_format::Error::InvalidArgument(detail.to_string()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measures(recall: f64, context: [f64; 3]) -> Measures {
        Measures {
            questions: 1,
            recall,
            context,
        }
    }

    #[test]
    fn a_fold_is_never_worse_only_when_every_measure_holds() {
        let words = measures(0.7, [0.5, 0.6, 0.7]);
        let fold = |tuned| Fold {
            file: PathBuf::from("a.json"),
            tuning: Tuning::default(),
            trained: 0.0,
            tuned,
            shipped: tuned,
            words,
        };
        let mut folds = Folds {
            model: "toy".into(),
            grid: vec![Tuning::default()],
            chosen: Tuning::default(),
            folds: vec![fold(measures(0.8, [0.5, 0.6, 0.7]))],
            table: Vec::new(),
        };
        assert!(folds.never_worse());
        folds.folds.push(fold(measures(0.9, [0.6, 0.59, 0.8])));
        assert!(!folds.never_worse(), "one context share fell");
        let mean = folds.mean(|f| f.tuned);
        assert!((mean.recall - 0.85).abs() < 1e-12);
        assert_eq!(mean.questions, 2);
    }
}
