//! Hash maps and sets with a fast hash and fixed keys, for the hot loops of ingest:
//! SipHash, the standard default, was a tenth of ingest's time. Nothing iterates
//! them where order would show in output.

/// A hash map with [`foldhash`]'s fast hash and fixed keys.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// A hash set with [`foldhash`]'s fast hash and fixed keys.
pub(crate) type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;
