use smg_format::limits::Limits;
use smg_format::validate::ensure_valid;
use smg_format::Document;

use super::*;

fn entity(name: &str, kind: &str, obs: &[&str]) -> Entity {
    Entity {
        name: name.into(),
        entity_type: kind.into(),
        observations: obs.iter().map(|o| o.to_string()).collect(),
    }
}

fn relation(from: &str, to: &str, kind: &str) -> Relation {
    Relation {
        from: from.into(),
        to: to.into(),
        relation_type: kind.into(),
    }
}

fn memory() -> Document {
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    let made = create_entities(
        &mut doc,
        vec![
            entity("Ada", "person", &["likes tea", "lives in Lisbon"]),
            entity("Acme", "company", &[]),
            entity("Ada", "person", &["a repeat in the same call"]),
        ],
    )
    .unwrap();
    assert_eq!(made.len(), 2);
    create_relations(&mut doc, vec![relation("Ada", "Acme", "works_at")]).unwrap();
    doc
}

#[test]
fn the_tools_behave_as_the_reference_server() {
    let mut doc = memory();
    ensure_valid(&doc, &Limits::default()).unwrap();
    // Existing entities and relations are skipped, not doubled.
    assert!(create_entities(&mut doc, vec![entity("Ada", "robot", &[])])
        .unwrap()
        .is_empty());
    assert!(
        create_relations(&mut doc, vec![relation("Ada", "Acme", "works_at")])
            .unwrap()
            .is_empty()
    );
    let added = add_observations(
        &mut doc,
        vec![ObservationsToAdd {
            entity_name: "Ada".into(),
            contents: vec!["likes tea".into(), "plays chess".into()],
        }],
    )
    .unwrap();
    assert_eq!(added[0].added_observations, ["plays chess"]);
    let v = View::new(&doc);
    assert_eq!(
        v.graph().entities[0].observations,
        ["likes tea", "lives in Lisbon", "plays chess"]
    );
    // search_nodes: name, type or observation, any case; relations touching a hit.
    assert_eq!(v.search("CHESS").entities.len(), 1);
    assert_eq!(v.search("company").entities[0].name, "Acme");
    assert_eq!(
        v.search("company").relations,
        [relation("Ada", "Acme", "works_at")]
    );
    assert!(v.search("nothing like it").entities.is_empty());
    let opened = v.open(&["Acme".into(), "Nobody".into()]);
    assert_eq!((opened.entities.len(), opened.relations.len()), (1, 1));
    delete_observations(
        &mut doc,
        vec![ObservationsToDelete {
            entity_name: "Ada".into(),
            observations: vec!["likes tea".into()],
        }],
    )
    .unwrap();
    let ada = doc.semantic_graph.as_ref().unwrap().nodes()[0].clone();
    assert_eq!(ada.content.as_deref(), Some("lives in Lisbon\nplays chess"));
    delete_relations(&mut doc, &[relation("Ada", "Acme", "works_at")]).unwrap();
    assert!(View::new(&doc).graph().relations.is_empty());
    delete_entities(&mut doc, &["Acme".into(), "Nobody".into()]).unwrap();
    assert_eq!(View::new(&doc).graph().entities.len(), 1);
    ensure_valid(&doc, &Limits::default()).unwrap();
}

#[test]
fn an_unknown_entity_changes_nothing() {
    let mut doc = memory();
    let before = doc.clone();
    let adds = vec![
        ObservationsToAdd {
            entity_name: "Ada".into(),
            contents: vec!["new".into()],
        },
        ObservationsToAdd {
            entity_name: "Nobody".into(),
            contents: vec!["x".into()],
        },
    ];
    let e = add_observations(&mut doc, adds).unwrap_err();
    assert_eq!(e.code(), "SMG-E202");
    assert_eq!(doc, before);
    let e = create_entities(&mut doc, vec![entity(" ", "person", &[])]).unwrap_err();
    assert_eq!(e.code(), "SMG-E020");
}

#[test]
fn a_relation_end_becomes_an_entity_when_created() {
    let mut doc = memory();
    create_relations(&mut doc, vec![relation("Ada", "Lisbon", "lives_in")]).unwrap();
    let v = View::new(&doc);
    assert!(!v.is_entity("Lisbon") && v.id_of("Lisbon").is_some());
    assert_eq!(v.graph().relations.len(), 2);
    let id = v.id_of("Lisbon").unwrap().to_string();
    create_entities(&mut doc, vec![entity("Lisbon", "city", &["sunny"])]).unwrap();
    let v = View::new(&doc);
    assert!(v.is_entity("Lisbon"));
    assert_eq!(
        v.id_of("Lisbon"),
        Some(id.as_str()),
        "the same node, the edge still holds"
    );
    assert_eq!(v.open(&["Lisbon".into()]).relations.len(), 1);
    ensure_valid(&doc, &Limits::default()).unwrap();
}

#[test]
fn names_that_differ_in_case_are_two_entities() {
    let mut doc = Document::new(smg_format::model::Timestamp::from_static(
        "2025-01-01T00:00:00Z",
    ));
    create_entities(
        &mut doc,
        vec![entity("Ada", "person", &[]), entity("ada", "project", &[])],
    )
    .unwrap();
    create_relations(&mut doc, vec![relation("Ada", "ada", "works on")]).unwrap();
    let v = View::new(&doc);
    assert_eq!(v.graph().entities.len(), 2);
    assert_ne!(v.id_of("Ada"), v.id_of("ada"));
    ensure_valid(&doc, &Limits::default()).unwrap();
    let text = crate::export::mcp_memory(&doc).text;
    assert_eq!(text.lines().count(), 3);
    assert!(
        text.contains(r#"{"type":"relation","from":"Ada","to":"ada","relationType":"works on"}"#)
    );
}
