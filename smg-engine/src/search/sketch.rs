//! A text's words in eight bytes (b-bit MinHash, Li and König 2010): two sketches
//! agree in about as many of their eight slots as the texts share words (Jaccard),
//! which is what finding near-duplicates needs, without the texts. A turn's sketch is
//! kept in the index so that diversifying results reads no turn from disk.

/// Slots of a sketch.
const SLOTS: usize = 8;
/// One seed per slot: each slot is the smallest of a different hash of the words.
const SEEDS: [u64; SLOTS] = [
    0x243F_6A88_85A3_08D3,
    0x1319_8A2E_0370_7344,
    0xA409_3822_299F_31D0,
    0x082E_FA98_EC4E_6C89,
    0x4528_21E6_38D0_1377,
    0xBE54_66CF_34E9_0C6C,
    0xC0AC_29B7_C97C_50DD,
    0x3F84_D5B5_B547_0917,
];

/// The low byte of the smallest hash per slot; all zero for a text without words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Sketch([u8; SLOTS]);

impl Sketch {
    /// The sketch of a text's content words (unstemmed, case folded).
    pub(crate) fn of(text: &str) -> Self {
        let mut min = [u64::MAX; SLOTS];
        let mut any = false;
        for word in crate::text::terms(text) {
            any = true;
            let w = fnv1a(word.as_bytes());
            for (m, seed) in min.iter_mut().zip(SEEDS) {
                *m = (*m).min((w ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            }
        }
        if !any {
            return Sketch::default();
        }
        Sketch(min.map(|m| m as u8))
    }

    /// The sketch as one number, as the turns' index keeps it.
    pub(crate) fn to_u64(self) -> u64 {
        u64::from_le_bytes(self.0)
    }

    /// The sketch [`Sketch::to_u64`] gave.
    pub(crate) fn from_u64(n: u64) -> Self {
        Sketch(n.to_le_bytes())
    }

    /// About the share of words two texts have in common, in \[0, 1\]; 0 when either
    /// has none.
    pub(crate) fn likeness(&self, other: &Sketch) -> f64 {
        if *self == Sketch::default() || *other == Sketch::default() {
            return 0.0;
        }
        let same = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        same as f64 / SLOTS as f64
    }
}

/// FNV-1a: words are short and not chosen by an attacker, and this is several times
/// cheaper than SipHash.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}
