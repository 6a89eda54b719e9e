//! The span of time a search or a context keeps to (`smg search --since … --until …`):
//! turns by their time, memory nodes by their timestamp. It runs in the turns' and the
//! nodes' indexes (a range over their time columns), so that the best matches inside
//! the span are found, not the best matches overall thinned out afterwards.

use std::ops::Range;

use super::{fulltext, Key};
use crate::error::Result;
use smg_format::Error;

/// A span of time: from `since` (included) to `until` (excluded), either end open.
/// Bounded on either side, it keeps only what has a time inside it; turns and nodes
/// without a time are kept by [`Period::ALL`] alone.
///
/// ```
/// use smg_engine::search::Period;
/// let may = Period::parse(Some("2023-05-01"), Some("2023-05-31")).unwrap();
/// assert!(may.contains("2023-05-31T23:59:59Z"));
/// assert!(!may.contains("2023-06-01T00:00:00Z"));
/// assert!(Period::parse(Some("2023-06-01"), Some("2023-05-01")).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Period {
    since: Option<i64>,
    until: Option<i64>,
}

impl Period {
    /// The whole of time: nothing is left out.
    pub const ALL: Period = Period {
        since: None,
        until: None,
    };

    /// The period from `since` to `until`, each an RFC 3339 date-time or a date
    /// (`2023-05-08`): `since` from its first instant (a date's midnight, UTC), `until`
    /// up to its instant, or through the end of its day when it is a date. A value
    /// that is neither, or an `until` not after `since`, is `SMG-E020`.
    pub fn parse(since: Option<&str>, until: Option<&str>) -> Result<Period> {
        let read = |s: &str, what: &str| {
            instant(s).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{what} `{s}` is not a date (2023-05-08) or an RFC 3339 date-time \
                     (2023-05-08T13:56:00Z)"
                ))
            })
        };
        let since = since.map(|s| read(s, "since")).transpose()?;
        let until = until
            .map(|s| read(s, "until").map(|(t, date)| if date { t + DAY } else { t }))
            .transpose()?;
        Period::millis(since.map(|s| s.0), until)
    }

    /// The period from `since` to `until`, in milliseconds since 1970 (UTC); an
    /// `until` not after `since` is `SMG-E020`.
    pub fn millis(since: Option<i64>, until: Option<i64>) -> Result<Period> {
        if let (Some(s), Some(u)) = (since, until) {
            if u <= s {
                return Err(Error::InvalidArgument(format!(
                    "the period ends ({}) before it begins ({}): nothing is inside it",
                    shown(u),
                    shown(s)
                ))
                .into());
            }
        }
        Ok(Period { since, until })
    }

    /// Whether nothing is left out.
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether an RFC 3339 time falls inside (a text that is none falls in
    /// [`Period::ALL`] alone).
    pub fn contains(&self, time: &str) -> bool {
        self.contains_ms(instant(time).map(|t| t.0))
    }

    /// Whether an instant (ms; `None` for no time) falls inside.
    pub(crate) fn contains_ms(&self, time: Option<i64>) -> bool {
        match (self.range(), time) {
            (None, _) => true,
            (Some(r), Some(t)) => r.contains(&t),
            (Some(_), None) => false,
        }
    }

    /// The instants inside (ms, end excluded); `None` for the whole of time.
    pub(crate) fn range(&self) -> Option<Range<i64>> {
        (!self.is_all()).then(|| {
            // i64::MIN stands for "no time" in the indexes: never inside.
            self.since.unwrap_or(i64::MIN + 1)..self.until.unwrap_or(i64::MAX)
        })
    }
}

/// The turns and the nodes whose time falls in a period: the rows a vector search
/// scores when it keeps to the period, looked up a bit each in the sets the search of
/// words inside the period uses too (`None`: a damaged index, nothing inside).
#[derive(Debug)]
pub(crate) struct Inside {
    pub(crate) turns: Option<fulltext::Inside>,
    pub(crate) nodes: Option<fulltext::Inside>,
}

impl Inside {
    /// Whether the turn or node `key` is inside.
    pub(crate) fn holds(&self, key: Key) -> bool {
        let (set, i) = match key {
            Key::Turn(t) => (&self.turns, t),
            Key::Node(n) => (&self.nodes, n),
        };
        set.as_ref().is_some_and(|s| s.contains(i))
    }

    /// How many turns and nodes are inside.
    pub(crate) fn len(&self) -> usize {
        [&self.turns, &self.nodes]
            .iter()
            .filter_map(|s| s.as_ref())
            .map(fulltext::Inside::len)
            .sum()
    }
}

/// A day in milliseconds.
const DAY: i64 = 86_400_000;

/// An RFC 3339 date-time, or a date (its midnight, UTC): the instant in ms, and
/// whether it was a date.
pub(crate) fn instant(s: &str) -> Option<(i64, bool)> {
    let s = s.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some((t.timestamp_millis(), false));
    }
    let d = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
    Some((d.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis(), true))
}

/// An instant as RFC 3339 (UTC), for messages.
fn shown(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map_or_else(
        || format!("{ms} ms"),
        |t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::ingested;
    use crate::search::{Item, Retriever, SearchOptions};
    use smg_format::{Encoding, Limits, WriteOptions};

    /// Hiking talk on three days; the third day's says it most.
    fn days() -> smg_format::Document {
        let lines = [
            (
                "2023-05-01T09:00:00Z",
                "I love hiking, we went hiking in the hills.",
            ),
            ("2023-05-01T09:05:00Z", "Nice, the hills are lovely."),
            ("2023-05-02T10:00:00Z", "Hiking again today with my sister."),
            ("2023-05-02T10:05:00Z", "Your sister likes the mountains."),
            (
                "2023-05-03T11:00:00Z",
                "Hiking hiking hiking: I decided to buy hiking boots.",
            ),
            (
                "2023-05-03T11:05:00Z",
                "Good boots matter for hiking trips.",
            ),
        ];
        let jsonl: String = lines
            .iter()
            .enumerate()
            .map(|(i, (when, text))| {
                let who = if i % 2 == 0 { "Ann" } else { "Bob" };
                format!(
                    "{}\n",
                    serde_json::json!({"conversation_id": "c", "message_id": i.to_string(),
                        "speaker": who, "content": text, "timestamp": when, "session_id": when.get(..10)})
                )
            })
            .collect();
        ingested(jsonl)
    }

    /// A retriever of `doc` built in memory, and one read in place from `doc` written
    /// packed with its search index (in the folder returned).
    fn built_and_stored(doc: &smg_format::Document) -> (Retriever, Retriever, tempfile::TempDir) {
        let limits = Limits::default();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.smg");
        let options = WriteOptions::new(Encoding::Packed);
        let bytes =
            crate::search::encode_with_search_index(doc.clone(), &options, &limits).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let lazy = Retriever::open_packed(&path, &limits).unwrap().unwrap();
        (Retriever::new(doc, &limits).unwrap(), lazy, dir)
    }

    #[test]
    fn search_and_context_keep_to_the_period_in_the_built_and_the_stored_index() {
        let (built, lazy, _dir) = built_and_stored(&days());
        let may2 = Period::parse(Some("2023-05-02"), Some("2023-05-02")).unwrap();
        let all = SearchOptions::new(3);
        let mut within = SearchOptions::new(3);
        within.period = may2;
        for r in [&built, &lazy] {
            let everywhere = r.search("hiking boots", &all).unwrap();
            let Item::Turn { turn, .. } = &everywhere.turns[0].item else {
                panic!("a turn first");
            };
            assert!(turn.content.starts_with("Hiking hiking"), "{turn:?}");
            let found = r.search("hiking boots", &within).unwrap();
            assert!(!found.turns.is_empty());
            for f in found.turns.iter().chain(&found.nodes) {
                let when = match &f.item {
                    Item::Turn { turn, .. } => turn.timestamp.as_deref().map(String::from),
                    Item::Node { timestamp, .. } => timestamp.clone(),
                };
                assert!(when.is_some_and(|t| may2.contains(&t)), "{f:?}");
            }
            let Item::Turn { turn, .. } = &found.turns[0].item else {
                panic!("a turn first");
            };
            assert_eq!(turn.content, "Hiking again today with my sister.");
            let pack = r.context("hiking boots", None, 1000, &may2).unwrap();
            assert!(!pack.items.is_empty());
            for h in &pack.items {
                let t = h.turn.timestamp.as_deref().unwrap();
                assert!(may2.contains(t), "{t}");
            }
            assert!(pack.text.contains("2023-05-02") && !pack.text.contains("2023-05-03"));
            let none = Period::parse(Some("2024-01-01"), None).unwrap();
            assert!(r
                .context("hiking", None, 1000, &none)
                .unwrap()
                .items
                .is_empty());
        }
        assert_eq!(
            built.search("hiking boots", &within).unwrap(),
            lazy.search("hiking boots", &within).unwrap()
        );
    }

    #[test]
    fn a_search_by_meaning_keeps_to_the_period_too() {
        let mut doc = days();
        // Turn 5 (3 May) is nearest the query; turn 3 is the nearest on 2 May.
        let near = [0.2, 0.1, 0.8, 0.3, 1.0, 0.0];
        let vectors = near.iter().map(|&x: &f64| vec![x, (1.0 - x * x).sqrt()]);
        crate::search::tests::with_turn_vectors(&mut doc, vectors.collect());
        let (built, lazy, _dir) = built_and_stored(&doc);
        let vector = crate::search::QueryVector {
            model: "toy".into(),
            values: vec![1.0, 0.0],
        };
        let may2 = Period::parse(Some("2023-05-02"), Some("2023-05-02")).unwrap();
        for r in [&built, &lazy] {
            let mut o = SearchOptions::new(1);
            o.vector = Some(vector.clone());
            o.exact = true;
            for (period, want) in [(Period::ALL, 5), (may2, 3)] {
                o.period = period;
                // "zebra" matches no word: the turn is meaning's.
                let found = r.search("zebra", &o).unwrap();
                let Item::Turn { turn, .. } = &found.turns[0].item else {
                    panic!("a turn first");
                };
                assert_eq!(
                    (turn.turn.get(), found.turns[0].sources.clone()),
                    (want, vec!["turns"])
                );
                let pack = r.context("zebra", Some(&vector), 1000, &period).unwrap();
                let turns: Vec<u64> = pack.items.iter().map(|h| h.turn.turn.get()).collect();
                assert!(turns.contains(&want), "{turns:?}");
                let mut times = pack
                    .items
                    .iter()
                    .filter_map(|h| h.turn.timestamp.as_deref());
                assert!(times.clone().count() == turns.len() && times.all(|t| period.contains(t)));
            }
        }
    }

    #[test]
    fn dates_and_date_times_bound_a_period() {
        let p = Period::parse(Some("2023-05-08"), Some("2023-05-08")).unwrap();
        assert!(p.contains("2023-05-08T00:00:00Z"));
        assert!(p.contains("2023-05-08T23:59:59.999Z"));
        assert!(!p.contains("2023-05-09T00:00:00Z"));
        assert!(!p.contains("2023-05-07T23:59:59Z"));
        assert!(!p.contains_ms(None), "no time is outside a bounded period");
        let p = Period::parse(Some("2023-05-08T12:00:00+02:00"), None).unwrap();
        assert!(p.contains("2023-05-08T10:00:00Z"));
        assert!(!p.contains("2023-05-08T09:59:59Z"));
        let p = Period::parse(None, Some("2023-05-08T10:00:00Z")).unwrap();
        assert!(!p.contains("2023-05-08T10:00:00Z"), "until is excluded");
        assert!(p.contains("1900-01-01T00:00:00Z"));
        assert!(Period::ALL.contains_ms(None) && Period::parse(None, None).unwrap().is_all());
    }

    #[test]
    fn what_is_no_period_is_a_clear_error() {
        for (since, until, says) in [
            (Some("yesterday"), None, "since `yesterday` is not a date"),
            (None, Some("2023-13-01"), "until `2023-13-01` is not a date"),
            (
                Some("2023-05-09"),
                Some("2023-05-08"),
                "ends (2023-05-09T00:00:00Z)",
            ),
        ] {
            let e = Period::parse(since, until).unwrap_err();
            assert_eq!(e.code(), "SMG-E020");
            assert!(e.to_string().contains(says), "{e}");
        }
    }
}
