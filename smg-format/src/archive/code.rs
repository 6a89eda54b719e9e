//! Fenced code blocks in turn text (CommonMark fences: ``` or ~~~).

/// One fenced block: its info string and the byte range of its body, which runs from
/// the line after the opening fence to the start of the closing fence line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence<'a> {
    pub(crate) info: &'a str,
    pub(crate) body: std::ops::Range<usize>,
}

/// Every closed fenced block of `text`, in order. Unclosed fences are left as text.
pub(crate) fn fences(text: &str) -> Vec<Fence<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(u8, usize, &str, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let marker = rest.bytes().next().filter(|b| *b == b'`' || *b == b'~');
        let run = marker.map_or(0, |m| rest.bytes().take_while(|b| *b == m).count());
        match open {
            None if indent <= 3 && run >= 3 => {
                let info = rest[run..].trim();
                if !(marker == Some(b'`') && info.contains('`')) {
                    open = Some((marker.unwrap_or(b'`'), run, info, at));
                }
            }
            Some((m, n, info, body))
                if marker == Some(m)
                    && run >= n
                    && rest[run..].trim().is_empty()
                    && indent <= 3 =>
            {
                out.push(Fence {
                    info,
                    body: body..start,
                });
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// A file name given by the info string (`rust src/main.rs`, `title="a.js"`) or by a
/// comment on the body's first line (`// file: a.js`, `# filename: x.py`).
pub(crate) fn file_name<'a>(info: &'a str, body: &'a str) -> Option<&'a str> {
    let from_info = info.split_whitespace().find_map(|token| {
        let (key, value) = token
            .split_once('=')
            .map_or((None, token), |(k, v)| (Some(k), v));
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        let named = matches!(key, Some("title" | "file" | "filename" | "name"));
        let pathish = key.is_none()
            && (value.contains('/') || value.contains('.'))
            && value.chars().any(char::is_alphanumeric);
        (named || pathish)
            .then_some(value)
            .filter(|v| !v.is_empty())
    });
    from_info.or_else(|| comment_name(body))
}

fn comment_name(body: &str) -> Option<&str> {
    let first = body.lines().next()?.trim();
    let inner = ["//", "#", "--", "<!--", "/*", ";"]
        .iter()
        .find_map(|p| first.strip_prefix(p))?
        .trim()
        .trim_end_matches("-->")
        .trim_end_matches("*/")
        .trim();
    let (key, name) = inner.split_once(':')?;
    let name = name.trim();
    let known = matches!(
        key.trim().to_ascii_lowercase().as_str(),
        "file" | "filename" | "path"
    );
    (known && !name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bodies_exactly() {
        let t = "Here:\n```rust src/main.rs\nfn main() {}\n```\nand ~~~\n~~~py\nx = 1\n~~~~\nend```\n```\nunclosed\n";
        let f = fences(t);
        assert_eq!(f.len(), 2);
        assert_eq!(&t[f[0].body.clone()], "fn main() {}\n");
        assert_eq!(f[0].info, "rust src/main.rs");
        assert_eq!(&t[f[1].body.clone()], "x = 1\n");
        assert_eq!(f[0].info, "rust src/main.rs");
        assert_eq!(file_name(f[0].info, ""), Some("src/main.rs"));
    }

    #[test]
    fn names_from_comments_and_titles() {
        assert_eq!(file_name("js title=\"webhook.js\"", ""), Some("webhook.js"));
        assert_eq!(
            file_name("python", "# file: app/models.py\nx = 1\n"),
            Some("app/models.py")
        );
        assert_eq!(
            file_name("html", "<!-- filename: index.html -->\n"),
            Some("index.html")
        );
        assert_eq!(file_name("python", "x = 1\n"), None);
    }
}
