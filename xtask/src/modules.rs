//! A crate's module tree, read from its source files as the compiler would find them.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use syn::{Attribute, Item, UseTree, Visibility};

/// A module path inside a crate: `["archive", "writer"]`; the root is empty.
pub type ModPath = Vec<String>;

/// One module: where its text is and what it holds (test-only items left out).
pub struct Module {
    /// The file that holds the module's items (an inline module shares its parent's).
    pub file: PathBuf,
    /// Reachable from outside the crate: declared `pub` at every step from the root.
    pub public: bool,
    /// The module's own items, without `#[cfg(test)]` ones.
    pub items: Vec<Item>,
    /// Its `use` declarations, flattened: read once, resolved many times.
    pub imports: Vec<Import>,
}

/// Every module of one crate, by path.
pub struct CrateTree {
    /// The crate's name as other crates write it (`smg_format`).
    pub name: String,
    /// The modules, the root first.
    pub modules: BTreeMap<ModPath, Module>,
    /// The folder file names are shown relative to.
    base: PathBuf,
}

impl CrateTree {
    /// Reads the crate whose root file (`src/lib.rs` or `src/main.rs`) is `root`; file
    /// names are shown relative to `base`.
    pub fn load(name: &str, root: &Path, base: &Path) -> Result<Self> {
        let mut tree = CrateTree {
            name: name.to_owned(),
            modules: BTreeMap::new(),
            base: base.to_path_buf(),
        };
        let dir = root
            .parent()
            .context("a crate root has a folder")?
            .to_path_buf();
        tree.add_file(Vec::new(), root, &dir, true)?;
        Ok(tree)
    }

    /// A file's name as reports show it: relative to the base folder.
    pub fn shown<'a>(&self, file: &'a Path) -> std::path::Display<'a> {
        file.strip_prefix(&self.base).unwrap_or(file).display()
    }

    /// Whether `path` names a module of this crate.
    pub fn is_module(&self, path: &[String]) -> bool {
        self.modules.contains_key(path)
    }

    fn add_file(&mut self, path: ModPath, file: &Path, dir: &Path, public: bool) -> Result<()> {
        let text =
            fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let parsed =
            syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        self.add_items(path, file, dir, parsed.items, public)
    }

    fn add_items(
        &mut self,
        path: ModPath,
        file: &Path,
        dir: &Path,
        items: Vec<Item>,
        public: bool,
    ) -> Result<()> {
        let mut kept = Vec::new();
        for item in items {
            if is_test_only(item_attrs(&item)) {
                continue;
            }
            let Item::Mod(module) = item else {
                kept.push(item);
                continue;
            };
            let name = module.ident.to_string();
            let mut child = path.clone();
            child.push(name.clone());
            let child_public = public && matches!(module.vis, Visibility::Public(_));
            match module.content {
                Some((_, inner)) => {
                    self.add_items(child, file, &dir.join(&name), inner, child_public)?
                }
                None => {
                    let (child_file, child_dir) = match path_attribute(&module.attrs) {
                        Some(rel) => {
                            // `#[path]` is relative to the directory of the declaring file.
                            let base = file.parent().unwrap_or(Path::new("."));
                            let target = base.join(rel);
                            let target_dir = target.parent().unwrap_or(base).to_path_buf();
                            (target, target_dir)
                        }
                        None => child_location(dir, &name)?,
                    };
                    self.add_file(child, &child_file, &child_dir, child_public)?;
                }
            }
        }
        self.modules.insert(
            path,
            Module {
                file: file.to_path_buf(),
                public,
                imports: imports(&kept),
                items: kept,
            },
        );
        Ok(())
    }
}

/// One import: the path as written, and the name it binds in its module (`*` for a glob).
#[derive(Clone, Debug)]
pub struct Import {
    /// The segments as written (`crate`, `super`, `self` included).
    pub path: Vec<String>,
    /// The name the import binds (its alias, its last segment, or `*`).
    pub name: String,
    /// A `pub use`: the name is part of the module's public API.
    pub public: bool,
}

/// The imports written in one module's items, flattened from their `use` trees.
fn imports(items: &[Item]) -> Vec<Import> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Use(u) = item {
            let start = out.len();
            flatten(&u.tree, &mut Vec::new(), &mut out);
            let public = matches!(u.vis, Visibility::Public(_));
            out[start..].iter_mut().for_each(|i| i.public = public);
        }
    }
    out
}

fn flatten(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<Import>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix.clone();
            // `use super::{self, x}` binds the module itself.
            if name != "self" {
                path.push(name.clone());
            }
            let name = path.last().cloned().unwrap_or(name);
            out.push(Import {
                path,
                name,
                public: false,
            });
        }
        UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push(Import {
                path,
                name: r.rename.to_string(),
                public: false,
            });
        }
        UseTree::Glob(_) => out.push(Import {
            path: prefix.clone(),
            name: "*".into(),
            public: false,
        }),
        UseTree::Group(g) => g.items.iter().for_each(|t| flatten(t, prefix, out)),
    }
}

/// The file a `#[path = "…"]` attribute names.
fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

/// Where `mod name;` declared in a module whose children live in `dir` is found.
fn child_location(dir: &Path, name: &str) -> Result<(PathBuf, PathBuf)> {
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        return Ok((flat, dir.join(name)));
    }
    let nested = dir.join(name).join("mod.rs");
    if nested.is_file() {
        return Ok((nested, dir.join(name)));
    }
    bail!(
        "module `{name}` declared, but neither {} nor {} exists",
        flat.display(),
        nested.display()
    )
}

/// Whether the attributes include `#[cfg(test)]`: such items are not part of the layers.
pub fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

/// An item's attributes (empty for the kinds that have none worth reading).
pub fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}
