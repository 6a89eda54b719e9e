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

/// 120 entities that all mention "tea", one named it, every one related to the next.
fn crowded() -> View {
    let mut doc = memory();
    let mut many: Vec<Entity> = (0..120)
        .map(|i| {
            entity(
                &format!("Person {i:03}"),
                "person",
                &["drinks tea", "long words here"],
            )
        })
        .collect();
    many.push(entity("Tea", "drink", &[]));
    create_entities(&mut doc, many).unwrap();
    let chain = (0..119)
        .map(|i| {
            relation(
                &format!("Person {i:03}"),
                &format!("Person {:03}", i + 1),
                "knows",
            )
        })
        .collect();
    create_relations(&mut doc, chain).unwrap();
    View::new(&doc)
}

#[test]
fn an_answer_that_fits_is_the_reference_servers_own() {
    let view = View::new(&memory());
    let paged = view.search_page("tea", &Page::first());
    assert_eq!(paged.graph, view.search("tea"));
    assert_eq!(
        serde_json::to_value(&paged).unwrap(),
        serde_json::to_value(view.search("tea")).unwrap()
    );
    assert_eq!(view.graph_page(&Page::first()).graph, *view.graph());
}

#[test]
fn a_crowded_answer_is_a_page_of_the_best_with_the_way_to_the_next() {
    let view = crowded();
    let first = view.search_page("tea", &Page::first());
    assert_eq!(first.graph.entities.len(), Page::LIMIT);
    assert_eq!(first.matched, Some(122));
    assert_eq!(first.next_offset, Some(Page::LIMIT));
    assert_eq!(
        first.graph.entities[0].name, "Tea",
        "the name itself ranks first"
    );
    let mut seen: Vec<String> = Vec::new();
    let mut page = Page::first();
    loop {
        let p = view.search_page("tea", &page);
        seen.extend(p.graph.entities.iter().map(|e| e.name.clone()));
        match p.next_offset {
            Some(next) => page.offset = next,
            None => break,
        }
    }
    let mut all: Vec<String> = view
        .search("tea")
        .entities
        .into_iter()
        .map(|e| e.name)
        .collect();
    seen.sort();
    all.sort();
    assert_eq!(seen, all, "the pages hold every match once");
}

#[test]
fn an_answer_never_holds_more_characters_than_asked() {
    let view = crowded();
    let small = Page {
        max_chars: 2_000,
        ..Page::first()
    };
    for p in [
        view.search_page("person", &small),
        view.graph_page(&small),
        view.open_page(
            &["Person 001".into(), "Ada".into()],
            &Page {
                max_chars: 300,
                ..small
            },
        ),
    ] {
        let text = serde_json::to_string_pretty(&p).unwrap();
        assert!(!p.graph.entities.is_empty());
        assert!(
            p.graph.entities.len() == 1 || text.chars().count() <= 2_000,
            "{text}"
        );
        assert!(p.matched.is_some(), "a cut answer says so");
    }
}
