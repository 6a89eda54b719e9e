//! Working memory and conversation turns.

use super::Timestamp;
use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

use super::fields::read_with_extra;

use super::{Extra, ShortText};

/// The hot tier: what a model needs first when memory is restored.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkingMemory {
    /// A 200–500 character summary of where things stand.
    pub summary: Option<String>,
    /// What the user is working towards now.
    pub current_goals: Option<Vec<String>>,
    /// Artifact ids in active use.
    pub active_artifacts: Option<Vec<String>>,
    /// The last few turns, verbatim.
    pub recent_context: Option<Vec<Turn>>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One conversation turn, as said.
///
/// `role` is an open set: `user`, `assistant`, `system` and `tool` are defined.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    // Fields in the order of their keys in canonical JSON: written in that order,
    // an object needs no sorting (the writer checks, and sorts only what is not).
    /// The original text, byte for byte.
    pub content: String,
    /// The source conversation's id.
    pub conversation_id: Option<ShortText>,
    /// Importance in \[0, 1\].
    pub importance: Option<super::Unit>,
    /// The source system's message id.
    pub message_id: Option<ShortText>,
    /// Who said it.
    pub role: super::NonEmpty,
    /// The memory tier of the conversation it belongs to; absent means personal.
    /// Everything derived from the turn takes this scope or a more restrictive one.
    pub scope: Option<super::Scope>,
    /// The session within the conversation.
    pub session_id: Option<ShortText>,
    /// Display name of the speaker, where the source has one.
    pub speaker: Option<ShortText>,
    /// When it was said (RFC 3339).
    pub timestamp: Option<Timestamp>,
    /// Turn number, unique within the document, from 1.
    pub turn: super::Ordinal,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Extra,
}

read_with_extra!(Turn {
    content: req "content",
    conversation_id: opt "conversationId",
    importance: opt "importance",
    message_id: opt "messageId",
    role: req "role",
    scope: opt "scope",
    session_id: opt "sessionId",
    speaker: opt "speaker",
    timestamp: opt "timestamp",
    turn: req "turn",
});

impl Turn {
    /// Turn number `turn`, said by `role`: `content`, and nothing else known yet.
    ///
    /// ```
    /// use smg_format::model::{role, Ordinal, Turn};
    /// let t = Turn { speaker: Some("Ada".into()), ..Turn::new(Ordinal::FIRST, role::USER, "hi") };
    /// assert_eq!(t.role, "user");
    /// ```
    pub fn new(turn: super::Ordinal, role: super::NonEmpty, content: impl Into<String>) -> Self {
        Turn {
            content: content.into(),
            conversation_id: None,
            importance: None,
            message_id: None,
            role,
            scope: None,
            session_id: None,
            speaker: None,
            timestamp: None,
            turn,
            extra: super::Extra::new(),
        }
    }
}
