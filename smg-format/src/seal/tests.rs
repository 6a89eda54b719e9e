//! Sealing and unsealing.

use super::*;

use crate::model::TurnRange;
use crate::test_support::full_fixture as doc;

fn valid(d: &Document) -> bool {
    let r = crate::validate::validate(
        &crate::codec::to_canonical_json(d).unwrap(),
        &crate::validate::ValidateOptions::default(),
    );
    r.is_valid() || panic!("{:?}", r.findings)
}

#[test]
fn sealing_hides_content_keeps_validity_and_unsealing_restores_exactly() {
    let original = doc();
    let mut d = original.clone();
    let pass = b"restricted pass";
    assert_eq!(
        seal(&mut d, SealTarget::Tier(Scope::Restricted), pass, 600_000).unwrap(),
        "tier:restricted"
    );
    assert_eq!(
        seal(
            &mut d,
            SealTarget::Collaborator("user_a"),
            b"user a",
            600_000
        )
        .unwrap(),
        "private:user_a"
    );
    let text = String::from_utf8(crate::codec::to_canonical_json(&d).unwrap()).unwrap();
    assert!(
        !text.contains("contract renegotiation") && !text.contains("idempotency"),
        "content leaked"
    );
    assert!(text.contains("tier:restricted") && text.contains("n_restricted"));
    assert!(valid(&d));

    assert_eq!(
        unseal(&mut d.clone(), "tier:restricted", b"wrong")
            .unwrap_err()
            .code(),
        "SMG-E141"
    );
    let mut tampered = d.clone();
    tampered.sealed_sections.as_mut().unwrap()[0].size += 1;
    assert_eq!(
        unseal(&mut tampered, "tier:restricted", pass)
            .unwrap_err()
            .code(),
        "SMG-E141"
    );
    let mut flipped = d.clone();
    let ct = &mut flipped.sealed_sections.as_mut().unwrap()[0].ciphertext;
    let mut raw = B64.decode(&*ct).unwrap();
    raw[3] ^= 1;
    *ct = B64.encode(raw);
    assert_eq!(
        unseal(&mut flipped, "tier:restricted", pass)
            .unwrap_err()
            .code(),
        "SMG-E142"
    );

    unseal(&mut d, "private:user_a", b"user a").unwrap();
    unseal(&mut d, "tier:restricted", pass).unwrap();
    assert_eq!(d, original);
}

/// Two public turns, then two restricted ones (with code, which stays in the turn), a
/// node of each scope with an edge between them, embeddings, recent turns and
/// conversation entries of both.
fn scoped() -> Document {
    use crate::model::{Edge, Embedding, Node, Turn, VectorIndex, WorkingMemory};
    let mut d = Document::new(crate::model::Timestamp::from_static("2025-12-04T10:30:00Z"));
    let code = "```py\nx = 1\ny = 2\nz = 3\nprint(x)\n```";
    let mut turns: Vec<Turn> = [
        (1, "public plan"),
        (2, "public reply"),
        (3, "board secret"),
        (4, code),
    ]
    .map(|(n, text)| crate::archive::tests::turn(n, text))
    .into();
    for t in &mut turns[2..] {
        t.scope = Some(Scope::Restricted);
        t.conversation_id = Some("board".into());
    }
    crate::archive::append_turns(&mut d, &turns, &Default::default()).unwrap();
    let archive = d.deep_archive.as_mut().unwrap();
    archive.extra.insert(
        "conversations".into(),
        serde_json::json!({"board": {"format": "jsonl", "order": 1, "scope": "restricted"},
                           "talk": {"format": "jsonl", "order": 0}}),
    );
    let vector = |turn: Option<u64>, node: Option<&str>| Embedding {
        turn: turn.map(|t| crate::model::Ordinal::new(t).unwrap()),
        node_id: node.map(String::from),
        vector: crate::model::Vector::new(vec![1.0, 0.0]).unwrap(),
        ..Embedding::default()
    };
    archive.vector_index = Some(VectorIndex {
        enabled: true,
        dimensions: Some(crate::model::Ordinal::new(2).unwrap()),
        embeddings: Some(vec![
            vector(Some(1), None),
            vector(Some(3), None),
            vector(None, Some("secret")),
        ]),
        ..VectorIndex::default()
    });
    d.working_memory = Some(WorkingMemory {
        recent_context: Some(turns[1..].to_vec()),
        ..WorkingMemory::default()
    });
    let node = |id: &str, scope| Node {
        scope,
        ..Node::new(
            crate::model::NonEmpty::new(id).unwrap(),
            crate::model::NonEmpty::from_static("memory"),
        )
    };
    let g = d.semantic_graph.get_or_insert_with(Default::default);
    g.nodes = Some(vec![
        node("public", None),
        node("secret", Some(Scope::Restricted)),
    ]);
    g.edges = Some(vec![Edge::new(
        crate::model::NonEmpty::from_static("secret"),
        crate::model::NonEmpty::from_static("related_to"),
        crate::model::NonEmpty::from_static("public"),
    )]);
    d
}

fn seal_restricted(d: &mut Document) {
    seal(d, SealTarget::Tier(Scope::Restricted), b"pass", 600_000).unwrap();
}

#[test]
fn a_tier_seals_its_blocks_vectors_recent_turns_and_conversations() {
    let original = scoped();
    assert!(valid(&original));
    assert_eq!(
        original.deep_archive.as_ref().unwrap().blocks().len(),
        2,
        "a block per scope"
    );
    assert!(
        original.artifact_vault.is_none(),
        "restricted code stays in its turn"
    );
    let mut d = original.clone();
    seal_restricted(&mut d);
    assert!(valid(&d));
    let text = String::from_utf8(crate::codec::to_canonical_json(&d).unwrap()).unwrap();
    for gone in ["board", "print(x)", "\"secret\",\"kind\"", "\"turn\":3"] {
        assert!(!text.contains(gone), "{gone} is still readable: {text}");
    }
    let section = &d.sealed_sections.as_ref().unwrap()[0];
    assert_eq!(section.turn_ranges, Some(vec![TurnRange::span(3, 4)]));
    assert_eq!(section.node_ids, Some(vec!["secret".to_string()]));
    assert_eq!(
        crate::archive::last_turn(&d),
        4,
        "sealed numbers stay taken"
    );
    let wm = d
        .working_memory
        .as_ref()
        .unwrap()
        .recent_context
        .as_ref()
        .unwrap();
    assert_eq!(wm.iter().map(|t| t.turn).collect::<Vec<_>>(), [2]);
    let mut all = d.clone();
    let opened = unseal_all(&mut all, b"pass").unwrap();
    assert_eq!(opened.ids().collect::<Vec<_>>(), ["tier:restricted"]);
    assert_eq!(all, original);
    unseal(&mut d, "tier:restricted", b"pass").unwrap();
    assert_eq!(d, original);
}

#[test]
fn unsealing_keeps_what_was_made_while_sealed() {
    let mut d = scoped();
    seal_restricted(&mut d);
    // Written again while sealed: the public node gone, another node named `secret`.
    let nodes = d.semantic_graph.as_mut().unwrap().nodes.as_mut().unwrap();
    nodes[0].id = crate::model::NonEmpty::from_static("secret");
    nodes[0].label = Some("made while sealed".into());
    unseal(&mut d, "tier:restricted", b"pass").unwrap();
    assert!(valid(&d));
    let g = d.semantic_graph.as_ref().unwrap();
    assert_eq!(g.nodes().len(), 1);
    assert_eq!(g.nodes()[0].label.as_deref(), Some("made while sealed"));
    assert!(
        g.edges().is_empty(),
        "the edge to the node that is gone stays out"
    );
}

#[test]
fn sections_sealed_before_compression_still_open_and_compression_is_authenticated() {
    let original = scoped();
    let key = Key {
        passphrase: b"pass",
        iterations: 600_000,
        salt: &[7; 16],
        nonce: &[8; 12],
    };
    let tier = SealTarget::Tier(Scope::Restricted);
    let mut plain = original.clone();
    seal_as(&mut plain, tier, &key, false).unwrap();
    let mut packed = original.clone();
    seal_as(&mut packed, tier, &key, true).unwrap();
    let (a, b) = (
        &plain.sealed_sections.as_ref().unwrap()[0],
        &packed.sealed_sections.as_ref().unwrap()[0],
    );
    assert_eq!(
        (a.compression.as_deref(), b.compression.as_deref()),
        (None, Some("brotli"))
    );
    assert_eq!(a.size, b.size, "size is the content's, compressed or not");
    assert!(b.ciphertext.len() < a.ciphertext.len());
    for mut d in [plain.clone(), packed.clone()] {
        unseal(&mut d, "tier:restricted", b"pass").unwrap();
        assert_eq!(d, original);
    }
    let mut stripped = packed.clone();
    stripped.sealed_sections.as_mut().unwrap()[0].compression = None;
    let err = unseal(&mut stripped, "tier:restricted", b"pass").unwrap_err();
    assert_eq!(
        err.code(),
        "SMG-E141",
        "the key check covers the compression"
    );
    let mut unknown = packed;
    unknown.sealed_sections.as_mut().unwrap()[0].compression = Some("lzma".into());
    let err = unseal(&mut unknown, "tier:restricted", b"pass").unwrap_err();
    assert_eq!(err.code(), "SMG-E145");
}

#[test]
fn an_authorised_writer_seals_again_what_it_opened_with_what_it_added() {
    let mut d = scoped();
    seal_restricted(&mut d);
    let opened = unseal_all(&mut d, b"pass").unwrap();
    let g = d.semantic_graph.as_mut().unwrap();
    let mut added = g.nodes()[1].clone();
    added.id = crate::model::NonEmpty::from_static("added while open");
    g.nodes.as_mut().unwrap().push(added);
    let open = d.clone();
    opened.seal_again(&mut d, b"pass").unwrap();
    assert!(valid(&d));
    let sealed = &d.sealed_sections.as_ref().unwrap()[0];
    assert_eq!(sealed.encryption.iterations, 600_000);
    assert_eq!(
        sealed.node_ids.as_deref().unwrap(),
        ["secret", "added while open"]
    );
    assert_eq!(d.semantic_graph.as_ref().unwrap().nodes().len(), 1);
    unseal_all(&mut d, b"pass").unwrap();
    assert_eq!(d, open);

    // A tier emptied while open has nothing to seal again.
    let mut empty = scoped();
    seal_restricted(&mut empty);
    let opened = unseal_all(&mut empty, b"pass").unwrap();
    let g = empty.semantic_graph.as_mut().unwrap();
    g.nodes.as_mut().unwrap().retain(|n| n.scope.is_none());
    g.edges = None;
    empty
        .deep_archive
        .as_mut()
        .unwrap()
        .blocks
        .as_mut()
        .unwrap()
        .retain(|b| b.scope.is_none());
    opened.seal_again(&mut empty, b"pass").unwrap();
    assert!(empty.sealed_sections.is_none());
}
