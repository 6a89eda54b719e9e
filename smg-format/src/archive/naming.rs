//! Names and languages for code blocks that do not give their own: the file name the
//! conversation gives just before the block, else the class, function or type the block
//! declares (with its language's extension), and a language read from that name or
//! from an unmistakable first line.

use super::code;
use crate::languages::{extension_of, folded, language, language_of};
use crate::vault::VaultWriter;

/// Whether a block in `language` (if the fence names one) can be the file `name`.
fn fits(name: &str, language: Option<&str>) -> bool {
    match (language, language_of(name)) {
        (Some(l), Some(of_name)) => folded(l) == of_name,
        _ => true,
    }
}

/// The file name the text just before a block gives it: the last token of the last
/// paragraph that looks like a file with a known extension (`UserService.java`,
/// `` `src/app.py` ``, `pom.xml:`) and fits the block's language.
pub(crate) fn mentioned<'t>(before: &'t str, language: Option<&str>) -> Option<&'t str> {
    let paragraph = before.trim_end().rsplit("\n\n").next()?;
    let tail = &paragraph[paragraph.len().saturating_sub(400)..];
    let tail = tail.trim_start_matches(|c: char| !c.is_ascii());
    tail.split_whitespace()
        .rev()
        .map(|t| t.trim_matches(|c: char| !(c.is_alphanumeric() || "_./-".contains(c))))
        .map(|t| t.trim_end_matches('.'))
        .find(|t| {
            !t.contains("://")
                && !t.starts_with('.')
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
                && language_of(t).is_some()
                && fits(t, language)
        })
}

/// Keywords after which a block declares the name it is known by.
const DECLARATIONS: &[&str] = &[
    "class",
    "interface",
    "enum",
    "record",
    "struct",
    "trait",
    "object",
    "def",
    "fn",
    "func",
    "function",
    "module",
    "type",
];

/// The first class, interface, type or function the block declares, as a file name
/// when its language has an extension (`UserService.java`), else bare.
pub(crate) fn declared(body: &str, language: Option<&str>) -> Option<String> {
    let name = body.lines().find_map(|line| {
        let code = line.trim_start();
        if ["//", "#", "*", "/*", "--", "<!--"]
            .iter()
            .any(|c| code.starts_with(c))
        {
            return None;
        }
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || "({<:;=".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        let at = words.iter().position(|w| DECLARATIONS.contains(w))?;
        let name = words.get(at + 1)?;
        let ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        ok.then_some(*name)
    })?;
    Some(match language.and_then(extension_of) {
        Some(ext) => format!("{name}.{ext}"),
        None => name.to_string(),
    })
}

/// The language an unlabelled block is in, when its first line says so beyond doubt.
pub(crate) fn sniffed(body: &str) -> Option<&'static str> {
    let first = body.lines().find(|l| !l.trim().is_empty())?.trim();
    let shebang = |w: &str| first.starts_with("#!") && first.contains(w);
    if first.starts_with("<?xml") {
        Some("xml")
    } else if shebang("python") {
        Some("python")
    } else if shebang("bash") || shebang("/sh") {
        Some("bash")
    } else if shebang("node") {
        Some("javascript")
    } else if first.starts_with("package ") && first.ends_with(';') {
        Some("java")
    } else {
        None
    }
}

/// What a block is called and written in: as its fence says; else the file name the
/// text just before it gives (both "given"), or what it declares; the language from
/// that name or from an unmistakable first line.
pub(super) fn name_and_language(
    before: &str,
    f: &code::Fence<'_>,
    body: &str,
) -> (Option<String>, Option<String>, bool) {
    // `before` ends with the opening fence line, which is not part of the prose.
    let prose = before.trim_end_matches('\n');
    let prose = &prose[..prose.rfind('\n').map_or(0, |k| k + 1)];
    let fence_language = language(f.info);
    let fence_language = fence_language.as_deref();
    let sniffed = sniffed(body);
    let given = code::file_name(f.info, body)
        .or_else(|| mentioned(prose, fence_language))
        .map(str::to_string);
    let is_given = given.is_some();
    let name = given.or_else(|| declared(body, fence_language.or(sniffed)));
    let language = fence_language
        .or_else(|| name.as_deref().and_then(language_of))
        .or(sniffed)
        .map(str::to_string);
    (name, language, is_given)
}

/// The artifact a block with a given name revises, if not the one of that name: a name
/// seen for the first time names the unnamed artifact the block most resembles.
pub(super) fn given_revision(
    vault: &mut VaultWriter<'_>,
    name: Option<&str>,
    body: &str,
) -> Option<String> {
    match name {
        Some(n) if vault.resolve(n).is_some() => None,
        Some(n) => {
            let found = vault
                .similar(body)
                .filter(|id| vault.filename(id).is_none());
            if let Some(id) = &found {
                vault.name_artifact(id, n);
            }
            found
        }
        None => vault.similar(body),
    }
}

/// The artifact a block with only an inferred name revises: the one it most resembles,
/// named by the inference when it has no name and the name is free.
pub(super) fn inferred_revision(
    vault: &mut VaultWriter<'_>,
    name: Option<&str>,
    body: &str,
) -> Option<String> {
    let found = vault.similar(body)?;
    if let Some(n) = name {
        if vault.filename(&found).is_none() && vault.resolve(n).is_none() {
            vault.name_artifact(&found, n);
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Turn;

    #[test]
    fn the_conversation_names_the_file_just_before_the_block() {
        let before = "Intro.\n\nUpdate `src/main/java/UserService.java` like this:\n";
        assert_eq!(
            mentioned(before, Some("java")),
            Some("src/main/java/UserService.java")
        );
        assert_eq!(mentioned("And the pom.xml:", Some("xml")), Some("pom.xml"));
        // A name in another language, a URL, a version or an earlier paragraph is not it.
        assert_eq!(
            mentioned("Unlike UserService.java, this one", Some("xml")),
            None
        );
        assert_eq!(mentioned("See https://x.io/a.js now", None), None);
        assert_eq!(mentioned("Use version 1.2 here", None), None);
        assert_eq!(mentioned("See app.py.\n\nThen run:", None), None);
        assert_eq!(
            mentioned("Save it as build.gradle", Some("groovy")),
            Some("build.gradle")
        );
    }

    #[test]
    fn a_block_is_named_by_what_it_declares() {
        let java = "package a;\n\npublic final class UserService implements Svc {\n}\n";
        assert_eq!(
            declared(java, Some("java")).as_deref(),
            Some("UserService.java")
        );
        assert_eq!(
            declared("def load_users(path):\n    pass\n", Some("py")).as_deref(),
            Some("load_users.py")
        );
        assert_eq!(
            declared("pub fn main() {}\n", None).as_deref(),
            Some("main")
        );
        let commented = "// this function returns users\nfunction listUsers() {}\n";
        assert_eq!(
            declared(commented, Some("js")).as_deref(),
            Some("listUsers.js")
        );
        assert_eq!(declared("SELECT 1;\n", Some("sql")), None);
        assert_eq!(
            declared("task build(type: Jar) {\n}\n", Some("groovy")),
            None
        );
    }

    #[test]
    fn a_fence_names_a_language_only_when_it_reads_as_one() {
        assert_eq!(language("rust src/main.rs").as_deref(), Some("rust"));
        assert_eq!(language("Java").as_deref(), Some("java"));
        assert_eq!(language("c++").as_deref(), Some("c++"));
        assert_eq!(language("Preferred name: Tecolote"), None);
        assert_eq!(language("src/main.rs"), None);
    }

    #[test]
    fn languages_come_from_names_and_unmistakable_first_lines() {
        assert_eq!(language_of("build.GRADLE"), Some("groovy"));
        assert_eq!(language_of("README"), None);
        assert_eq!(
            sniffed("\n<?xml version=\"1.0\"?>\n<project/>\n"),
            Some("xml")
        );
        assert_eq!(
            sniffed("#!/usr/bin/env python3\nprint(1)\n"),
            Some("python")
        );
        assert_eq!(sniffed("package com.acme;\n"), Some("java"));
        assert_eq!(sniffed("x = 1\n"), None);
    }

    #[test]
    fn blocks_are_named_as_a_person_would() {
        let said = [
            "Update `src/main/java/com/acme/UserService.java` like this:\n```java\npackage com.acme;\n\npublic class UserService {\n    void a() {}\n}\n```\n",
            "And the build:\n```\n<?xml version=\"1.0\"?>\n<project>\n  <modelVersion>4.0.0</modelVersion>\n</project>\n```",
            "```groovy\ndef greet(name) {\n    def line = \"Hello, ${name}\"\n    println line\n}\n```",
            "Something else:\n```groovy\n// another script\ndef greet() {\n    [1, 2, 3].collect { it * 2 }\n}\nassert greet() == [2, 4, 6]\n```",
        ];
        let turns: Vec<Turn> = said
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Turn::new(
                    crate::model::Ordinal::new(i as u64 + 1).unwrap(),
                    crate::model::role::ASSISTANT,
                    c.to_string(),
                )
            })
            .collect();
        let mut doc =
            crate::Document::new(crate::model::Timestamp::from_static("2025-01-01T00:00:00Z"));
        crate::archive::append_turns(&mut doc, &turns, &crate::archive::ArchiveOptions::default())
            .unwrap();
        let arts = doc.artifact_vault.unwrap().artifacts.unwrap();
        let mut seen: Vec<(Option<String>, Option<String>)> = arts
            .values()
            .map(|a| (a.filename.clone(), a.language.clone()))
            .collect();
        seen.sort();
        let named = |n: Option<&str>, l: &str| (n.map(str::to_string), Some(l.to_string()));
        assert_eq!(
            seen,
            [
                named(None, "groovy"),
                named(None, "xml"),
                named(Some("greet.groovy"), "groovy"),
                named(Some("src/main/java/com/acme/UserService.java"), "java"),
            ],
            "an unrelated block that declares the same name stays apart, unnamed"
        );
    }
}
