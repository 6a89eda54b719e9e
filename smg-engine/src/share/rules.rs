//! What `smg share` finds: credentials and personal data, each rule a regular
//! expression and, where the shape alone would match ordinary text, a check of the
//! candidate (Luhn for cards, ISO 7064 mod 97 for IBANs, an address parser for IPs).
//!
//! The credential patterns follow gitleaks' published rules (config/gitleaks.toml,
//! MIT licence, kept in `LICENSE-gitleaks` beside this file), widened where a vendor's
//! keys have come in more than one length; the personal-data rules are smg's own.

use std::net::{Ipv4Addr, Ipv6Addr};

use regex::{Regex, RegexSet};

/// A kind of value `smg share` replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// AWS access key ids (`AKIA…`, `ASIA…`).
    AwsKey,
    /// OpenAI API keys (`sk-…`, `sk-proj-…`).
    OpenaiKey,
    /// Anthropic API keys (`sk-ant-api03-…`).
    AnthropicKey,
    /// GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`).
    GithubToken,
    /// GitLab tokens (`glpat-`, `glptt-`, `gldt-`, `glrt-`, `GR1348941`).
    GitlabToken,
    /// Slack tokens and webhook URLs (`xoxb-`, `xoxp-`, `xapp-`, hooks.slack.com).
    SlackToken,
    /// Stripe secret and restricted keys and webhook secrets.
    StripeKey,
    /// Google API keys, OAuth access tokens and client secrets.
    GoogleKey,
    /// JSON Web Tokens.
    Jwt,
    /// PEM private keys.
    PrivateKey,
    /// A value given to `password`, `passwd`, `pwd` or `passphrase`.
    Password,
    /// A long value given to a key named as a secret (`api_key`, `secret`, `token`…).
    Secret,
    /// The user and password of a URL or connection string (`postgres://u:p@host`).
    UrlCredentials,
    /// E-mail addresses.
    Email,
    /// Phone numbers (international with `+`, or North American).
    Phone,
    /// Payment card numbers (Luhn-checked, known issuer prefixes).
    Card,
    /// International bank account numbers (mod 97 checked).
    Iban,
    /// IPv4 and IPv6 addresses.
    Ip,
}

impl Kind {
    /// Every kind, in the order rules are listed.
    pub const ALL: [Kind; 18] = [
        Kind::AwsKey,
        Kind::OpenaiKey,
        Kind::AnthropicKey,
        Kind::GithubToken,
        Kind::GitlabToken,
        Kind::SlackToken,
        Kind::StripeKey,
        Kind::GoogleKey,
        Kind::Jwt,
        Kind::PrivateKey,
        Kind::Password,
        Kind::Secret,
        Kind::UrlCredentials,
        Kind::Email,
        Kind::Phone,
        Kind::Card,
        Kind::Iban,
        Kind::Ip,
    ];

    /// The kind's name, as `--keep` and the report spell it (`aws-key`, `email`…).
    ///
    /// ```
    /// use smg_engine::share::Kind;
    /// assert_eq!(Kind::UrlCredentials.name(), "url-credentials");
    /// assert_eq!(Kind::from_name("email"), Some(Kind::Email));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Kind::AwsKey => "aws-key",
            Kind::OpenaiKey => "openai-key",
            Kind::AnthropicKey => "anthropic-key",
            Kind::GithubToken => "github-token",
            Kind::GitlabToken => "gitlab-token",
            Kind::SlackToken => "slack-token",
            Kind::StripeKey => "stripe-key",
            Kind::GoogleKey => "google-key",
            Kind::Jwt => "jwt",
            Kind::PrivateKey => "private-key",
            Kind::Password => "password",
            Kind::Secret => "secret",
            Kind::UrlCredentials => "url-credentials",
            Kind::Email => "email",
            Kind::Phone => "phone",
            Kind::Card => "card",
            Kind::Iban => "iban",
            Kind::Ip => "ip",
        }
    }

    /// The kind named `name` (as [`Kind::name`] spells it).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind named `name`, or a message naming every kind there is (for
    /// `--keep` and the packages' `keep`).
    ///
    /// ```
    /// use smg_engine::share::Kind;
    /// assert_eq!(Kind::parse("ip"), Ok(Kind::Ip));
    /// assert!(Kind::parse("emails").unwrap_err().contains("url-credentials"));
    /// ```
    pub fn parse(name: &str) -> Result<Kind, String> {
        Kind::from_name(name.trim()).ok_or_else(|| {
            let all: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            format!("{name:?} is not a kind; the kinds are {}", all.join(", "))
        })
    }

    /// The tag of its replacements: `[EMAIL-1]`, `[AWS-KEY-2]`.
    pub(crate) fn tag(self) -> String {
        self.name().to_ascii_uppercase()
    }
}

/// One rule: a pattern, the capture group that holds the value (0: the whole
/// match), and a check of the candidate.
struct Rule {
    kind: Kind,
    pattern: &'static str,
    group: usize,
    check: Check,
}

/// A check of a candidate: the text, the whole match, and the value's byte range.
type Check = fn(&str, &str, usize, usize) -> bool;

/// Any candidate the pattern gives.
fn any(_: &str, _: &str, _: usize, _: usize) -> bool {
    true
}

const RULES: &[Rule] = &[
    Rule {
        kind: Kind::AwsKey,
        pattern: r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        group: 1,
        check: any,
    },
    Rule {
        kind: Kind::AnthropicKey,
        pattern: r"\bsk-ant-(?:api|admin|sid|oat)[0-9]{2}-[A-Za-z0-9_-]{20,}",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::OpenaiKey,
        pattern: r"\bsk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,}",
        group: 0,
        check: mixed,
    },
    Rule {
        kind: Kind::GithubToken,
        pattern: r"\b(?:(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{36,255}|github_pat_[0-9A-Za-z_]{22,255})\b",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::GitlabToken,
        pattern: r"\b(?:glpat-[0-9A-Za-z_.-]{20,300}|glptt-[0-9a-f]{40}|gldt-[0-9A-Za-z_-]{20,}|glrt-[0-9A-Za-z_-]{20,}|glcbt-[0-9A-Za-z_-]{20,}|GR1348941[0-9A-Za-z_-]{20,})",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::SlackToken,
        pattern: r"(?:\bxox[abposre]-[0-9]+-[0-9A-Za-z-]{8,}|\bxapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+|(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56})",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::StripeKey,
        pattern: r"\b(?:(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{24,})\b",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::GoogleKey,
        pattern: r"(?:\bAIza[0-9A-Za-z_-]{35}|\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[0-9A-Za-z_-]{28})",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::Jwt,
        pattern: r"\bey[A-Za-z0-9_-]{17,}\.ey[A-Za-z0-9_-]{17,}\.(?:[A-Za-z0-9_-]{10,}={0,2})?",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::PrivateKey,
        pattern: r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{64,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]{64,})",
        group: 0,
        check: any,
    },
    Rule {
        kind: Kind::Password,
        pattern: r#"(?i)\b(?:password|passwd|passphrase|pwd)\b["']?\s*[:=]\s*["']?([^\s"'`,;<>(){}\[\]]{4,128})"#,
        group: 1,
        check: not_placeholder,
    },
    Rule {
        kind: Kind::Secret,
        pattern: r#"(?i)\b(?:secret|client_?secret|api_?key|apikey|access_?key|secret_?key|private_?key|auth_?token|access_?token|refresh_?token|bearer|token)\b["']?\s*[:= ]\s*["']?([A-Za-z0-9/+_.=-]{16,256})"#,
        group: 1,
        check: secret_value,
    },
    Rule {
        kind: Kind::UrlCredentials,
        pattern: r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://([^\s/:@"'<>\[\]]+:[^\s/@"'<>\[\]]+)@[A-Za-z0-9.-]"#,
        group: 1,
        check: any,
    },
    Rule {
        kind: Kind::Email,
        pattern: r"\b[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b",
        group: 0,
        check: email,
    },
    Rule {
        kind: Kind::Phone,
        pattern: r"(?:\+[0-9]{1,3}[ .-]?(?:\([0-9]{1,4}\)[ .-]?)?[0-9]{1,4}(?:[ .-]?[0-9]{2,4}){1,4}|(?:\b1[ .-])?(?:\([0-9]{3}\) ?|\b[0-9]{3}[ .-])[0-9]{3}[ .-][0-9]{4}\b)",
        group: 0,
        check: phone,
    },
    Rule {
        kind: Kind::Card,
        pattern: r"\b[0-9](?:[ -]?[0-9]){12,18}\b",
        group: 0,
        check: card,
    },
    Rule {
        kind: Kind::Iban,
        pattern: r"\b[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)\b",
        group: 0,
        check: iban,
    },
    Rule {
        kind: Kind::Ip,
        pattern: r"(?:\b[0-9]{1,3}(?:\.[0-9]{1,3}){3}\b|(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6})",
        group: 0,
        check: ip,
    },
];

/// A value found: its kind and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) kind: Kind,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The rules, compiled once, less the kinds kept.
#[derive(Debug)]
pub struct Rules {
    set: RegexSet,
    each: Vec<(Kind, Regex, usize, Check)>,
}

impl Rules {
    /// Every rule but those of the kinds in `keep`.
    ///
    /// ```
    /// use smg_engine::share::{Kind, Rules};
    /// let rules = Rules::new(&[Kind::Ip]);
    /// let found: Vec<_> = rules.find("mail ada@example.org from 10.0.0.1").collect();
    /// assert_eq!(found, vec![(Kind::Email, "ada@example.org")]);
    /// ```
    pub fn new(keep: &[Kind]) -> Rules {
        let chosen: Vec<&Rule> = RULES.iter().filter(|r| !keep.contains(&r.kind)).collect();
        let compile =
            |p: &str| Regex::new(&ascii_boundaries(p)).expect("the built-in rules compile");
        Rules {
            set: RegexSet::new(chosen.iter().map(|r| ascii_boundaries(r.pattern)))
                .expect("the rules compile"),
            each: chosen
                .iter()
                .map(|r| (r.kind, compile(r.pattern), r.group, r.check))
                .collect(),
        }
    }

    /// Whether a rule's pattern matches `joined`, strings joined by line breaks (as
    /// [`super::walk::joined`] joins them): `false` means no rule finds anything in
    /// any of them, since every pattern that matches a string alone matches it there
    /// (their only assertions are word boundaries, which a line break keeps).
    pub(crate) fn may_hold(&self, joined: &str) -> bool {
        self.set.is_match(joined)
    }

    /// Each value found in `text`, with its kind, first to last.
    pub fn find<'t>(&self, text: &'t str) -> impl Iterator<Item = (Kind, &'t str)> + 't {
        self.hits(text)
            .into_iter()
            .map(move |h| (h.kind, &text[h.start..h.end]))
    }

    /// The values in `text`, first to last, none overlapping another: of two that
    /// overlap, the one that starts first, then the longer, then the earlier rule.
    pub(crate) fn hits(&self, text: &str) -> Vec<Hit> {
        if text.len() < 7 {
            return Vec::new();
        }
        let matched = self.set.matches(text);
        if !matched.matched_any() {
            return Vec::new();
        }
        let mut all = Vec::new();
        for i in matched.iter() {
            let (kind, re, group, check) = &self.each[i];
            for caps in re.captures_iter(text) {
                let (Some(whole), Some(m)) = (caps.get(0), caps.get(*group)) else {
                    continue;
                };
                if check(text, whole.as_str(), m.start(), m.end()) {
                    all.push((
                        i,
                        Hit {
                            kind: *kind,
                            start: m.start(),
                            end: m.end(),
                        },
                    ));
                }
            }
        }
        all.sort_by_key(|(i, h)| (h.start, std::cmp::Reverse(h.end), *i));
        let mut out: Vec<Hit> = Vec::with_capacity(all.len());
        for (_, h) in all {
            if out.last().is_none_or(|last| h.start >= last.end) {
                out.push(h);
            }
        }
        out
    }
}

/// `pattern` with ASCII word boundaries: every rule's values are ASCII, and a Unicode
/// boundary sends the regex engine from its DFA to a far slower one on any text that
/// is not ASCII.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

fn bytes_before(text: &str, start: usize) -> Option<u8> {
    start.checked_sub(1).map(|i| text.as_bytes()[i])
}

fn byte_after(text: &str, end: usize) -> Option<u8> {
    text.as_bytes().get(end).copied()
}

/// A key-like value that has both letters and digits (ordinary words do not).
fn mixed(_: &str, value: &str, _: usize, _: usize) -> bool {
    let v = value.rsplit('-').next().unwrap_or(value);
    v.bytes().any(|b| b.is_ascii_digit()) && v.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A password that is not a placeholder (`${DB_PASS}`, `****`, `<secret>`, a
/// replacement already made) nor a word that stands for one.
fn not_placeholder(text: &str, _: &str, start: usize, end: usize) -> bool {
    let v = &text[start..end];
    let lower = v.to_ascii_lowercase();
    let placeholder = v.starts_with(['$', '%', '*', '.', '/', '&'])
        || v.bytes()
            .all(|b| b == b'x' || b == b'X' || b == b'*' || b == b'.')
        || matches!(
            lower.as_str(),
            "none"
                | "null"
                | "true"
                | "false"
                | "required"
                | "optional"
                | "string"
                | "empty"
                | "hidden"
                | "redacted"
                | "password"
                | "secret"
                | "changeme"
                | "example"
        );
    // In code, `password: Option<String>` and `password = match …` name a type or
    // start an expression: a value followed by `<`, `(`, `::` or `.x` is not one.
    let after = &text[end..];
    let code = after.starts_with(['<', '(', '[', '{'])
        || after.starts_with("::")
        || after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_alphanumeric());
    // A word alone is a password only when long and lower-case (`sunshine`), not a
    // capitalised type (`Some`, `Option`) or a short word.
    let word = v.bytes().all(|b| b.is_ascii_alphabetic());
    let wordy = word && (v.len() < 8 || v.starts_with(|c: char| c.is_ascii_uppercase()));
    !placeholder && !code && !wordy && !lower.ends_with("password")
}

/// A secret-looking value: letters and digits mixed, not a placeholder, not a path or
/// a dotted name.
fn secret_value(text: &str, whole: &str, start: usize, end: usize) -> bool {
    let v = &text[start..end];
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let letters = v.bytes().filter(u8::is_ascii_alphabetic).count();
    let ordinary = v.contains("..") || v.starts_with('/') || v.matches('.').count() > 2;
    digits >= 2 && letters >= 4 && !ordinary && not_placeholder(text, whole, start, end)
}

/// Not an image or file name (`icon@2x.png`).
fn email(_: &str, value: &str, _: usize, _: usize) -> bool {
    let tld = value
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    !matches!(
        tld.as_str(),
        "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "svg"
            | "webp"
            | "ico"
            | "js"
            | "ts"
            | "css"
            | "py"
            | "rs"
            | "md"
            | "json"
            | "map"
    )
}

/// A phone number: 8 to 15 digits after `+`, or a North American number; never part
/// of a longer number, a version or a date.
fn phone(text: &str, value: &str, start: usize, end: usize) -> bool {
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    if glued(text, start, end) {
        return false;
    }
    let groups: Vec<usize> = value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect();
    if groups.windows(3).any(|w| w == [4, 2, 2]) {
        return false;
    }
    if value.starts_with('+') {
        return (8..=15).contains(&digits);
    }
    digits == 10 || (digits == 11 && value.starts_with('1'))
}

/// Whether a number found at `start..end` continues a longer word or number
/// (`v1.2`, `x4111…`, `12-3456`), rather than standing alone in a sentence.
fn glued(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let digit_at = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
    let joins = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let link = |b: u8| b"./-".contains(&b);
    let before = bytes_before(text, start)
        .is_some_and(|b| joins(b) || link(b) && digit_at(start.checked_sub(2)));
    let after =
        byte_after(text, end).is_some_and(|b| joins(b) || link(b) && digit_at(Some(end + 1)));
    before || after
}

/// A card number: 13 to 19 digits that pass Luhn's check, with a known issuer's
/// prefix, its separators all alike.
fn card(text: &str, value: &str, start: usize, end: usize) -> bool {
    if glued(text, start, end) {
        return false;
    }
    let seps: Vec<u8> = value.bytes().filter(|b| !b.is_ascii_digit()).collect();
    if seps.windows(2).any(|w| w[0] != w[1]) {
        return false;
    }
    let digits: Vec<u32> = value.chars().filter_map(|c| c.to_digit(10)).collect();
    let n = digits.len();
    let prefix = |len: usize| digits[..len].iter().fold(0u32, |a, d| a * 10 + d);
    let issuer = match digits[0] {
        4 => matches!(n, 13 | 16 | 19),
        3 => {
            matches!(prefix(2), 34 | 37) && n == 15
                || matches!(prefix(2), 35 | 36 | 38 | 30) && n >= 14
        }
        5 => (51..=55).contains(&prefix(2)) && n == 16,
        2 => (2221..=2720).contains(&prefix(4)) && n == 16,
        6 => (prefix(4) == 6011 || prefix(2) == 65 || prefix(2) == 62) && n >= 16,
        _ => false,
    };
    issuer && luhn(&digits) && digits.iter().any(|d| *d != digits[0])
}

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| match (i % 2 == 1, d * 2) {
            (true, x) if x > 9 => x - 9,
            (true, x) => x,
            (false, _) => d,
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Countries that issue IBANs, with their length.
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IQ", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LC", 32),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NL", 18),
    ("NO", 15),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("SA", 24),
    ("SC", 31),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VA", 22),
    ("VG", 24),
    ("XK", 20),
];

/// An IBAN: a country's length and ISO 7064 mod 97 = 1.
fn iban(_: &str, value: &str, _: usize, _: usize) -> bool {
    let compact: String = value.chars().filter(|c| *c != ' ').collect();
    let Some((_, len)) = IBAN_LENGTHS.iter().find(|(c, _)| compact.starts_with(c)) else {
        return false;
    };
    if compact.len() != *len {
        return false;
    }
    let moved = compact[4..].chars().chain(compact[..4].chars());
    let mut rem = 0u32;
    for c in moved {
        let Some(d) = c.to_digit(36) else {
            return false;
        };
        rem = if d >= 10 {
            (rem * 100 + d) % 97
        } else {
            (rem * 10 + d) % 97
        };
    }
    rem == 1
}

/// An IP address: IPv4 not inside a longer dotted run or after `v`/`version`; IPv6
/// of at least three groups, not inside a word. Loopback and unspecified addresses
/// (`127.0.0.1`, `0.0.0.0`, `::1`) say nothing of anyone and stay.
fn ip(text: &str, value: &str, start: usize, end: usize) -> bool {
    let before = bytes_before(text, start);
    let after = byte_after(text, end);
    if value.contains('.') {
        let dotted = |b: Option<u8>| b.is_some_and(|b| b == b'.' || b.is_ascii_alphanumeric());
        let versioned = text[..start].trim_end().to_ascii_lowercase();
        let version = versioned.ends_with('v') || versioned.ends_with("version");
        let after_dot_digit =
            after == Some(b'.') && text.as_bytes().get(end + 1).is_some_and(u8::is_ascii_digit);
        let local = value
            .parse::<Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback() || a.is_unspecified());
        return value.parse::<Ipv4Addr>().is_ok()
            && !local
            && !dotted(before)
            && !after_dot_digit
            && !version;
    }
    let wordy =
        |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
    let groups = value.split(':').filter(|g| !g.is_empty()).count();
    let address = value.parse::<Ipv6Addr>();
    let local = address
        .as_ref()
        .is_ok_and(|a| a.is_loopback() || a.is_unspecified());
    groups >= 3 && !wordy(before) && !wordy(after) && address.is_ok() && !local
}

#[cfg(test)]
mod tests;
