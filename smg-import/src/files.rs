//! What a repository and a folder share: files as text for the vault, and their
//! records read as the messages of one conversation.

use serde_json::Value;
use smg_engine::ingest::Conversation;
use smg_engine::Result;

use crate::Records;

/// Files larger than this are not put into the vault.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// A file's bytes as text for the vault, or why not.
pub(crate) fn text_of(bytes: Vec<u8>) -> std::result::Result<String, String> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} bytes, over the {MAX_FILE_BYTES}-byte limit",
            bytes.len()
        ));
    }
    if bytes.contains(&0) {
        return Err("binary".into());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())
}

/// Records made in the shape of JSON Lines (spec §16), read as JSON Lines are: the
/// commits or documents as conversations of messages, each keeping its record.
pub(crate) fn conversations(
    made: &[Value],
    records: &mut Records<'_>,
) -> Result<Vec<Conversation>> {
    let mut text = String::new();
    for r in made {
        text.push_str(&r.to_string());
        text.push('\n');
    }
    crate::jsonl::read(&text, records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_within_the_limit_goes_to_the_vault() {
        assert_eq!(
            text_of(b"fn main() {}\n".to_vec()).unwrap(),
            "fn main() {}\n"
        );
        assert_eq!(text_of(vec![b'a', 0, b'b']).unwrap_err(), "binary");
        assert_eq!(text_of(vec![0xff, 0xfe]).unwrap_err(), "not UTF-8");
        assert!(text_of(vec![b'a'; MAX_FILE_BYTES + 1])
            .unwrap_err()
            .contains("limit"));
    }
}
