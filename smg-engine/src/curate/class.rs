//! The classes of the curation tables (spec §18.1): which row a node falls under,
//! its type weight and half-life.

use smg_format::model::Node;

/// Which row of the curation tables a node falls under (spec §18.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// An agent's identity (never pruned).
    Agent,
    /// Security credentials (never pruned).
    AgentKey,
    /// Schema version tracking (never pruned).
    Migration,
    /// System configuration (never pruned).
    SystemConfig,
    /// A held belief; smg's `decision` nodes are beliefs.
    Belief,
    /// A reflection.
    Reflection,
    /// An analysis; smg's `problem` nodes are analyses.
    Analysis,
    /// A synthesis; smg's `artifact` nodes are syntheses.
    Synthesis,
    /// A recommendation; smg's `solution` nodes are recommendations.
    Recommendation,
    /// Compressed context; smg's `segment` nodes are compressed context.
    CompressedContext,
    /// A task.
    Task,
    /// A plain memory entry: smg's `memory`, `concept` and `entity` nodes and every
    /// type the tables do not name.
    MemoryEntry,
    /// A session's context.
    Session,
    /// A notification.
    Notification,
}

impl Class {
    /// The class of a node, from its `type`.
    pub fn of(node: &Node) -> Class {
        // Lower case without `_` and `-`, on the stack: this runs for every node and
        // edge end of a cycle.
        let mut buf = [0u8; 24];
        let mut len = 0;
        for b in node.kind.bytes().filter(|b| !matches!(b, b'_' | b'-')) {
            if len == buf.len() {
                return Class::MemoryEntry;
            }
            buf[len] = b.to_ascii_lowercase();
            len += 1;
        }
        match &buf[..len] {
            b"agent" => Class::Agent,
            b"agentkey" => Class::AgentKey,
            b"migration" => Class::Migration,
            b"systemconfig" => Class::SystemConfig,
            b"belief" | b"decision" => Class::Belief,
            b"reflection" => Class::Reflection,
            b"analysis" | b"problem" => Class::Analysis,
            b"synthesis" | b"artifact" => Class::Synthesis,
            b"recommendation" | b"solution" => Class::Recommendation,
            b"compressedcontext" | b"segment" => Class::CompressedContext,
            b"task" => Class::Task,
            b"session" | b"sessioncontext" => Class::Session,
            b"notification" => Class::Notification,
            _ => Class::MemoryEntry,
        }
    }

    /// The class's name in reports (the seed's node label).
    pub fn name(self) -> &'static str {
        match self {
            Class::Agent => "Agent",
            Class::AgentKey => "AgentKey",
            Class::Migration => "Migration",
            Class::SystemConfig => "SystemConfig",
            Class::Belief => "Belief",
            Class::Reflection => "Reflection",
            Class::Analysis => "Analysis",
            Class::Synthesis => "Synthesis",
            Class::Recommendation => "Recommendation",
            Class::CompressedContext => "CompressedContext",
            Class::Task => "Task",
            Class::MemoryEntry => "MemoryEntry",
            Class::Session => "SessionContext",
            Class::Notification => "Notification",
        }
    }

    /// Type weight and half-life in days (Jochi's table; `None`: no decay).
    pub(crate) fn weight(self, node: &Node) -> (f64, Option<f64>) {
        match self {
            Class::Agent | Class::AgentKey | Class::Migration | Class::SystemConfig => (10.0, None),
            // The table weighs active beliefs held with confidence over 0.7; any other
            // belief weighs as a plain entry but keeps the belief's half-life.
            Class::Belief if is_active(node) && node.confidence.map_or(0.0, f64::from) > 0.7 => {
                (10.0, Some(180.0))
            }
            Class::Belief => (2.5, Some(180.0)),
            Class::Reflection => (8.0, Some(90.0)),
            Class::Analysis => (7.0, Some(60.0)),
            Class::Synthesis => (6.5, Some(120.0)),
            Class::Recommendation => (5.0, Some(30.0)),
            Class::CompressedContext => (4.0, Some(90.0)),
            // Active tasks are protected; a finished one fades over its TTL.
            Class::Task => (3.0, Some(14.0)),
            Class::MemoryEntry => (2.5, Some(45.0)),
            Class::Session => (1.5, Some(1.0)),
            Class::Notification => (0.5, Some(0.5)),
        }
    }
}

/// A node's status, lower-cased; absent means `active`.
pub(crate) fn status(node: &Node) -> String {
    node.status
        .as_deref()
        .unwrap_or("active")
        .to_ascii_lowercase()
}

fn is_active(node: &Node) -> bool {
    status(node) == "active"
}
