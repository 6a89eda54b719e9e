//! Languages of code and documents: the file extensions each is written with, the
//! names fences give them, and which words read as one.

/// File extensions of code and documents, and the language each is written in.
const EXTENSIONS: &[(&str, &str)] = &[
    ("java", "java"),
    ("kt", "kotlin"),
    ("kts", "kotlin"),
    ("scala", "scala"),
    ("groovy", "groovy"),
    ("gradle", "groovy"),
    ("xml", "xml"),
    ("py", "python"),
    ("rs", "rust"),
    ("go", "go"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "jsx"),
    ("ts", "typescript"),
    ("tsx", "tsx"),
    ("rb", "ruby"),
    ("php", "php"),
    ("c", "c"),
    ("h", "c"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("hpp", "cpp"),
    ("cs", "csharp"),
    ("swift", "swift"),
    ("m", "objectivec"),
    ("sql", "sql"),
    ("sh", "bash"),
    ("bash", "bash"),
    ("zsh", "bash"),
    ("ps1", "powershell"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("json", "json"),
    ("toml", "toml"),
    ("ini", "ini"),
    ("properties", "properties"),
    ("md", "markdown"),
    ("html", "html"),
    ("css", "css"),
    ("scss", "scss"),
    ("vue", "vue"),
    ("dart", "dart"),
    ("lua", "lua"),
    ("r", "r"),
    ("tf", "hcl"),
    ("proto", "protobuf"),
    ("graphql", "graphql"),
];

/// Other names people give the same languages on fences.
const ALIASES: &[(&str, &str)] = &[
    ("py", "python"),
    ("python3", "python"),
    ("js", "javascript"),
    ("node", "javascript"),
    ("ts", "typescript"),
    ("rs", "rust"),
    ("sh", "bash"),
    ("shell", "bash"),
    ("zsh", "bash"),
    ("yml", "yaml"),
    ("kt", "kotlin"),
    ("c++", "cpp"),
    ("cs", "csharp"),
    ("c#", "csharp"),
    ("golang", "go"),
    ("rb", "ruby"),
];

/// The language named by an info string: its first word, lower-cased, when that reads
/// as a language (a known one in any case, or a short lower-case word) and not as a
/// file name or the start of prose (`Preferred name: …` is text put in a fence).
pub(crate) fn language(info: &str) -> Option<String> {
    let first = info.split_whitespace().next()?;
    if first.contains('.') || first.contains('/') || first.contains('=') {
        return None;
    }
    let lower = first.to_ascii_lowercase();
    let plain = first.len() <= 16
        && first
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+#-_".contains(c));
    (is_language(&lower) || plain).then_some(lower)
}

/// Languages fences name that no extension above stands for.
const OTHER_LANGUAGES: &[&str] = &[
    "text",
    "plaintext",
    "txt",
    "console",
    "shell-session",
    "diff",
    "patch",
    "dockerfile",
    "makefile",
    "cmake",
    "nginx",
    "jsonc",
    "json5",
    "csv",
    "tsv",
    "latex",
    "tex",
    "haskell",
    "elixir",
    "erlang",
    "clojure",
    "ocaml",
    "fsharp",
    "perl",
    "matlab",
    "julia",
    "zig",
    "nim",
    "solidity",
    "assembly",
    "asm",
    "vb",
    "vba",
    "pascal",
    "fortran",
    "cobol",
    "prolog",
    "lisp",
    "scheme",
    "racket",
    "groovy",
    "mermaid",
    "plantuml",
    "regex",
    "http",
];

/// Whether `word` (lower-case) is a language a fence may name.
pub(crate) fn is_language(word: &str) -> bool {
    EXTENSIONS.iter().any(|(e, l)| *e == word || *l == word)
        || ALIASES.iter().any(|(a, _)| *a == word)
        || OTHER_LANGUAGES.contains(&word)
}

/// The language a fence's word names, folded (`py` is `python`), lower-cased.
pub(crate) fn folded(language: &str) -> String {
    let l = language.to_ascii_lowercase();
    ALIASES
        .iter()
        .find(|(a, _)| *a == l)
        .map_or(l, |(_, full)| (*full).to_string())
}

/// The language a file name's extension names.
pub(crate) fn language_of(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    EXTENSIONS.iter().find(|(e, _)| *e == ext).map(|(_, l)| *l)
}

/// The extension a language's files take.
pub(crate) fn extension_of(language: &str) -> Option<&'static str> {
    let l = folded(language);
    EXTENSIONS
        .iter()
        .find(|(_, lang)| *lang == l)
        .map(|(e, _)| *e)
}
