//! Token counts of OpenAI's BPE tokenizers (tiktoken's `cl100k_base`, `o200k_base`),
//! for budgets counted as a model counts them. The vocabularies are compiled in
//! (tiktoken-rs ships them): nothing is downloaded.

use smg_engine::search::Tokens;

/// The tokenizers [`tokens`] knows.
pub const NAMES: [&str; 2] = ["cl100k", "o200k"];

/// A [`Tokens`] that counts with the BPE called `name` (`cl100k`: GPT-4 and
/// GPT-3.5; `o200k`: GPT-4o and later); `None` for another name. Special tokens
/// are counted as the text they are.
///
/// ```
/// let cl100k = smg_embed::bpe::tokens("cl100k").unwrap();
/// assert_eq!(cl100k.count("hello world"), 2);
/// assert!(smg_embed::bpe::tokens("gpt2").is_none());
/// ```
pub fn tokens(name: &str) -> Option<Tokens> {
    let bpe = match name {
        "cl100k" => tiktoken_rs::cl100k_base_singleton(),
        "o200k" => tiktoken_rs::o200k_base_singleton(),
        _ => return None,
    };
    Some(Tokens::counted(name, move |text: &str| {
        bpe.encode_ordinary(text).len()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_as_tiktoken_does() {
        // OpenAI's cookbook: "tiktoken is great!" is 6 tokens in cl100k_base.
        let cl100k = tokens("cl100k").unwrap();
        let o200k = tokens("o200k").unwrap();
        assert_eq!(cl100k.count("tiktoken is great!"), 6);
        assert_eq!(o200k.count("hello world"), 2);
        assert_eq!(cl100k.count(""), 0);
        // A special token in a memory is text, not a control token.
        assert!(cl100k.count("<|endoftext|>") > 1);
        assert_eq!(cl100k.name(), "cl100k");
        for name in NAMES {
            assert!(tokens(name).is_some());
        }
    }
}
