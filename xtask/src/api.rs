//! A crate's public API as text: every public module, what it exports (signatures
//! without bodies, public fields only), and the methods and trait impls of its types.
//! Reviewed like code: the snapshot beside each library changes only on purpose.

use std::fmt::Write as _;

use syn::{Attribute, Fields, ImplItem, Item, TraitItem, Type, Visibility};

use crate::layers::resolve;
use crate::modules::{CrateTree, ModPath};

/// The public API of `tree` as text, one section per public module.
pub fn listing(tree: &CrateTree) -> String {
    let mut out = String::new();
    for (path, module) in tree.modules.iter().filter(|(_, m)| m.public) {
        let name = std::iter::once(tree.name.as_str()).chain(path.iter().map(String::as_str));
        let _ = writeln!(out, "mod {}", name.collect::<Vec<_>>().join("::"));
        for item in &module.items {
            if is_pub(item) {
                section(tree, item, &mut out);
            }
        }
        for import in module.imports.iter().filter(|i| i.public) {
            match find_reexported(tree, path, &import.path) {
                Some(item) => section(tree, item, &mut out),
                None => {
                    let _ = writeln!(out, "    pub use {};", import.path.join("::"));
                }
            }
        }
        out.push('\n');
    }
    out
}

fn is_pub(item: &Item) -> bool {
    !matches!(
        item,
        Item::Use(_) | Item::Mod(_) | Item::Impl(_) | Item::Macro(_)
    ) && item_vis(item).is_some_and(|v| matches!(v, Visibility::Public(_)))
}

/// The definition a `pub use` names, when it is this crate's and not in a public module
/// (a re-export of another public module's item is listed there, and named here).
fn find_reexported<'t>(tree: &'t CrateTree, from: &ModPath, path: &[String]) -> Option<&'t Item> {
    let target = resolve(tree, from, path)?;
    if tree.modules[&target].public {
        return None;
    }
    let name = path.last()?;
    tree.modules[&target]
        .items
        .iter()
        .find(|item| item_ident(item).is_some_and(|i| &i == name))
}

fn section(tree: &CrateTree, item: &Item, out: &mut String) {
    let Some(shown) = signature(item) else { return };
    indent(&render(shown), out);
    if let Some(name) = item_ident(item) {
        for imp in impls_of(tree, &name) {
            indent(&render(imp), out);
        }
    }
}

/// The item as an API reader needs it: no bodies, no private fields, no attributes but
/// derives and `non_exhaustive`.
fn signature(item: &Item) -> Option<Item> {
    let mut item = item.clone();
    match &mut item {
        Item::Fn(f) => {
            f.attrs.clear();
            f.block.stmts.clear();
        }
        Item::Struct(s) => {
            keep_api_attrs(&mut s.attrs);
            public_fields(&mut s.fields);
        }
        Item::Enum(e) => {
            keep_api_attrs(&mut e.attrs);
            for variant in &mut e.variants {
                variant.attrs.clear();
                variant.fields.iter_mut().for_each(|f| f.attrs.clear());
            }
        }
        Item::Trait(t) => {
            t.attrs.clear();
            for member in &mut t.items {
                if let TraitItem::Fn(f) = member {
                    f.attrs.clear();
                    f.default = None;
                }
            }
        }
        Item::Const(c) => c.attrs.clear(),
        Item::Static(s) => s.attrs.clear(),
        Item::Type(t) => t.attrs.clear(),
        _ => return None,
    }
    Some(item)
}

fn keep_api_attrs(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| a.path().is_ident("derive") || a.path().is_ident("non_exhaustive"));
}

fn public_fields(fields: &mut Fields) {
    let public: Vec<syn::Field> = fields
        .iter()
        .filter(|f| matches!(f.vis, Visibility::Public(_)))
        .cloned()
        .map(|mut f| {
            f.attrs.clear();
            f
        })
        .collect();
    let hidden = fields.len() - public.len();
    match fields {
        Fields::Named(named) => {
            named.named = public.into_iter().collect();
            if hidden > 0 {
                let marker: syn::Field = syn::parse_quote!(__private_fields: ());
                named.named.push(marker);
            }
        }
        Fields::Unnamed(unnamed) if hidden > 0 => {
            unnamed.unnamed = public.into_iter().collect();
            unnamed.unnamed.push(syn::parse_quote!(__private_fields));
        }
        _ => {}
    }
}

/// The impls of type `name` anywhere in the crate: inherent ones with their public
/// members (bodies removed), trait impls as their header alone.
fn impls_of(tree: &CrateTree, name: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for module in tree.modules.values() {
        for item in &module.items {
            let Item::Impl(imp) = item else { continue };
            let Type::Path(ty) = &*imp.self_ty else {
                continue;
            };
            if ty.path.segments.last().is_none_or(|s| s.ident != name) {
                continue;
            }
            let mut shown = imp.clone();
            shown.attrs.clear();
            if shown.trait_.is_some() {
                shown.items.clear();
            } else {
                shown.items.retain(public_member);
                if shown.items.is_empty() {
                    continue;
                }
                shown.items.iter_mut().for_each(strip_member);
            }
            out.push(Item::Impl(shown));
        }
    }
    out
}

fn public_member(member: &ImplItem) -> bool {
    let vis = match member {
        ImplItem::Fn(f) => &f.vis,
        ImplItem::Const(c) => &c.vis,
        ImplItem::Type(t) => &t.vis,
        _ => return false,
    };
    matches!(vis, Visibility::Public(_))
}

fn strip_member(member: &mut ImplItem) {
    match member {
        ImplItem::Fn(f) => {
            f.attrs.clear();
            f.block.stmts.clear();
        }
        ImplItem::Const(c) => c.attrs.clear(),
        ImplItem::Type(t) => t.attrs.clear(),
        _ => {}
    }
}

fn render(item: Item) -> String {
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![item],
    };
    prettyplease::unparse(&file)
        .replace(" {}\n", ";\n")
        .replace("__private_fields: (),", "/* private fields */")
        .replace("__private_fields", "/* private fields */")
}

fn indent(text: &str, out: &mut String) {
    for line in text.lines() {
        let _ = writeln!(out, "    {line}");
    }
}

fn item_ident(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(i) => &i.ident,
        Item::Enum(i) => &i.ident,
        Item::Fn(i) => &i.sig.ident,
        Item::Static(i) => &i.ident,
        Item::Struct(i) => &i.ident,
        Item::Trait(i) => &i.ident,
        Item::Type(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

fn item_vis(item: &Item) -> Option<&Visibility> {
    match item {
        Item::Const(i) => Some(&i.vis),
        Item::Enum(i) => Some(&i.vis),
        Item::Fn(i) => Some(&i.vis),
        Item::Static(i) => Some(&i.vis),
        Item::Struct(i) => Some(&i.vis),
        Item::Trait(i) => Some(&i.vis),
        Item::Type(i) => Some(&i.vis),
        _ => None,
    }
}
