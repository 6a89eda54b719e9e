//! Import circles between files: which file's code names which other file's items.
//!
//! A file depends on another when a `use` or a path in its (non-test) code names a
//! module, or an item, of the other. Re-exports are followed to the file that defines
//! the item, so `crate::Document` re-exported by `lib.rs` is a dependency on the model's
//! file, not on `lib.rs`. Declaring a child (`mod writer;`) is not a dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::modules::{CrateTree, ModPath};

/// Every path written in a module's own items: in code, types, and macro arguments.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.0
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    // `pub(crate)` and `pub(super)` are paths too, but name no item.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        macro_paths(mac.tokens.clone(), &mut self.0);
        syn::visit::visit_macro(self, mac);
    }
}

/// Paths that start with `crate`, `super` or `self` inside a macro's tokens.
fn macro_paths(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let mut current: Vec<String> = Vec::new();
    let mut colons = 0;
    for token in tokens {
        match token {
            TokenTree::Ident(ident) if current.is_empty() || colons == 2 => {
                let word = ident.to_string();
                if current.is_empty() && !matches!(word.as_str(), "crate" | "super" | "self") {
                    continue;
                }
                current.push(word);
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && !current.is_empty() => colons += 1,
            TokenTree::Group(group) => {
                finish(&mut current, out);
                macro_paths(group.stream(), out);
            }
            _ => finish(&mut current, out),
        }
    }
    finish(&mut current, out);
}

fn finish(current: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if current.len() > 1 {
        out.push(std::mem::take(current));
    }
    current.clear();
}

/// Resolves a path written in module `from` to the module that defines what it names,
/// following re-exports; `None` for paths outside the crate or to local items.
pub fn resolve(tree: &CrateTree, from: &[String], path: &[String]) -> Option<ModPath> {
    resolve_depth(tree, from, path, 0)
}

fn resolve_depth(
    tree: &CrateTree,
    from: &[String],
    path: &[String],
    depth: usize,
) -> Option<ModPath> {
    let (first, rest) = path.split_first()?;
    let mut base: ModPath = from.to_vec();
    let mut rest = rest;
    match first.as_str() {
        "crate" => base.clear(),
        "self" => {}
        "super" => {
            base.pop()?;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ if tree.is_module(&[from, &path[..1]].concat()) => base.push(first.clone()),
        _ => return None,
    }
    while let Some((next, tail)) = rest.split_first() {
        let mut child = base.clone();
        child.push(next.clone());
        if !tree.is_module(&child) {
            break;
        }
        base = child;
        rest = tail;
    }
    match rest.first() {
        Some(name) if depth < 8 => Some(follow_reexport(tree, &base, name, depth).unwrap_or(base)),
        _ => Some(base),
    }
}

/// The module that defines `name`, when module `module` only imports it.
fn follow_reexport(
    tree: &CrateTree,
    module: &ModPath,
    name: &str,
    depth: usize,
) -> Option<ModPath> {
    let imports = &tree.modules.get(module)?.imports;
    let import = imports.iter().find(|i| i.name == name)?;
    resolve_depth(tree, module, &import.path, depth + 1)
}

/// A dependency between two files, with one path that makes it.
pub type Edges = BTreeMap<(PathBuf, PathBuf), String>;

/// Every file-to-file dependency of the crate.
pub fn file_edges(tree: &CrateTree) -> Edges {
    let mut edges = Edges::new();
    for (path, module) in &tree.modules {
        let mut written: Vec<Vec<String>> = module.imports.iter().map(|i| i.path.clone()).collect();
        let mut paths = Paths::default();
        module.items.iter().for_each(|item| paths.visit_item(item));
        written.extend(paths.0);
        for segments in written {
            let Some(target) = resolve(tree, path, &segments) else {
                continue;
            };
            if path.starts_with(&target) {
                continue;
            }
            let target_file = &tree.modules[&target].file;
            if *target_file != module.file {
                edges
                    .entry((module.file.clone(), target_file.clone()))
                    .or_insert_with(|| segments.join("::"));
            }
        }
    }
    edges
}

/// The import circles: groups of files that each reach the others, with the edges
/// between them (`a -> b via path`), sorted; empty when the layers are one-way.
pub fn circles(tree: &CrateTree) -> Vec<Vec<String>> {
    let edges = file_edges(tree);
    let files: BTreeSet<&PathBuf> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let index: BTreeMap<&PathBuf, usize> = files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let graph: DiGraphMap<usize, ()> = edges.keys().map(|(a, b)| (index[a], index[b])).collect();
    let mut out = Vec::new();
    for scc in tarjan_scc(&graph).into_iter().filter(|c| c.len() > 1) {
        let members: BTreeSet<usize> = scc.into_iter().collect();
        let mut lines: Vec<String> = edges
            .iter()
            .filter(|((a, b), _)| members.contains(&index[a]) && members.contains(&index[b]))
            .map(|((a, b), via)| format!("{} -> {} via {via}", tree.shown(a), tree.shown(b)))
            .collect();
        lines.sort();
        out.push(lines);
    }
    out.sort();
    out
}
