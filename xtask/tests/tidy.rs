//! The workspace's structure, checked like its behaviour: layers that go one way, and
//! public APIs that change only on purpose.

use std::fs;

use xtask::{api, layers, load_crate, workspace_root};

/// Every crate of the workspace with code of its own.
const CRATES: &[&str] = &[
    "smg-format",
    "smg-engine",
    "smg-import",
    "smg-embed",
    "smg-neo4j",
    "smg-view",
    "smg-mcp",
    "smg-cli",
    "smg-ffi",
    "bench",
    "xtask",
];

/// The library crates whose public API is listed for review.
const LIBRARIES: &[&str] = &[
    "smg-format",
    "smg-engine",
    "smg-import",
    "smg-embed",
    "smg-neo4j",
    "smg-view",
    "smg-mcp",
];

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let mut found = Vec::new();
    for dir in CRATES {
        for circle in layers::circles(&load_crate(dir).unwrap()) {
            found.push(format!("{dir}:\n  {}", circle.join("\n  ")));
        }
    }
    assert!(
        found.is_empty(),
        "import circles between files (move what both sides need below both):\n{}",
        found.join("\n")
    );
}

#[test]
fn public_apis_match_their_reviewed_listings() {
    let bless = std::env::var_os("SMG_BLESS").is_some();
    for dir in LIBRARIES {
        let listing = api::listing(&load_crate(dir).unwrap());
        let path = workspace_root().join(dir).join("public-api.txt");
        if bless {
            fs::write(&path, &listing).unwrap();
            continue;
        }
        let reviewed = fs::read_to_string(&path).unwrap_or_default();
        assert!(
            reviewed == listing,
            "the public API of {dir} changed: review it with `SMG_BLESS=1 cargo test -p xtask` \
             and `git diff {dir}/public-api.txt`"
        );
    }
}

/// A crate named `demo` made of `files` (path under `src/`, text), read as a tree.
fn demo_crate(name: &str, files: &[(&str, &str)]) -> xtask::modules::CrateTree {
    let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
    for (path, text) in files {
        let path = dir.join("src").join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let tree = xtask::modules::CrateTree::load("demo", &dir.join("src/lib.rs"), &dir).unwrap();
    fs::remove_dir_all(&dir).unwrap();
    tree
}

/// The check must see a circle when there is one, or its silence means nothing.
#[test]
fn a_circle_between_two_files_is_found() {
    let tree = demo_crate(
        "circle",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "use crate::b::B;\npub(crate) struct A(B);\n"),
            (
                "b.rs",
                "pub(crate) struct B;\npub(crate) fn make() -> crate::a::A { todo!() }\n",
            ),
            (
                "c.rs",
                "use crate::a::A;\n#[cfg(test)]\nmod tests { use crate::c; }\n",
            ),
        ],
    );
    let circles = layers::circles(&tree);
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert_eq!(circles[0].len(), 2, "a -> b and b -> a, not c: {circles:?}");
    assert!(circles[0][0].contains("a.rs -> ") && circles[0][0].ends_with("via crate::b::B"));
}

/// A child's use of what its parent defines is part of the parent, not a circle; a
/// re-export is followed to the file that defines the item.
#[test]
fn children_may_use_their_parent_and_reexports_are_followed() {
    let tree = demo_crate(
        "parent",
        &[
            ("lib.rs", "pub mod m;\npub use m::Thing;\nmod user;\n"),
            (
                "m/mod.rs",
                "mod inner;\npub use inner::Thing;\npub(crate) struct Shared;\n",
            ),
            (
                "m/inner.rs",
                "use super::Shared;\n/// A thing.\npub struct Thing(pub u8, Shared);\n",
            ),
            ("user.rs", "pub(crate) fn f(_: crate::Thing) {}\n"),
        ],
    );
    assert!(layers::circles(&tree).is_empty());
    let targets: Vec<String> = layers::file_edges(&tree)
        .keys()
        .filter(|(from, _)| from.ends_with("user.rs"))
        .map(|(_, to)| to.display().to_string())
        .collect();
    assert!(
        targets.len() == 1 && targets[0].ends_with("m/inner.rs"),
        "{targets:?}"
    );
    let listing = api::listing(&tree);
    let expected = "mod demo::m\n    pub struct Thing(pub u8, /* private fields */);";
    assert!(listing.contains(expected), "{listing}");
}
