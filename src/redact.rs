//! Redaction of secret-shaped text: the one redaction everything uses. `state::Store` runs it
//! on every file it writes under `.omc/` (which gets committed, shared and pasted), export on
//! every payload before it is spooled, and the commands on every stored text they print (a
//! file written by an older version or by OMC may still hold one). A leaf module: it needs
//! nothing from the crate, so the state store, the ground floor, can use it.
//!
//! What is recognised (each replaced by `[REDACTED:<kind>]`, or the value alone after a key):
//!
//! * provider keys by their prefix and length: `sk-…` (OpenAI, Anthropic), `sk_live_…` /
//!   `rk_live_…` (Stripe), `ghp_` `gho_` `ghu_` `ghs_` `ghr_` `github_pat_` (GitHub),
//!   `glpat-` (GitLab), `AKIA…` / `ASIA…` (AWS access key ids), `xoxb-` `xoxp-` `xoxa-`
//!   `xoxr-` `xoxs-` `xapp-` `xoxe-` (Slack), `AIza…` (Google), `npm_…`, `hf_…`, JSON Web
//!   Tokens (a sentence's full stop after one is not part of it), Twilio `SK`/`AC` + 32 hex,
//!   SendGrid `SG.….…`, Mailgun `key-…`, Mailchimp `…-us21`, Square, Shopify, DigitalOcean,
//!   Heroku `HRKU-`, PyPI, Databricks `dapi`, Linear, Doppler, New Relic, Docker Hub,
//!   RubyGems, Grafana — the [`PATTERNS`] table, shapes as gitleaks' rule set describes them;
//! * Slack, Discord and Teams webhook URLs and Telegram bot URLs (their id and token);
//! * `Bearer <token>` and the value of an `Authorization:` header;
//! * private-key blocks (`-----BEGIN … PRIVATE KEY…-----` to its `END` line — PEM, OpenSSH,
//!   PGP —, or to the end of the text when the block is cut);
//! * `password=…`, `passwd: …`, `secret=…`, `token=…`, `api_key=…`, `AccountKey=…` (any
//!   case, `=` or `:`, quoted or not; also as the end of a longer name such as
//!   `DB_PASSWORD=`; with spaces around `=` a quoted value, a key-shaped one (as in
//!   `~/.aws/credentials`) or a typed one — six or more characters with a digit or a symbol
//!   and none of an expression's brackets, dots or `$` (`password = hunter22 and …`; not
//!   `token = next_token()`, `secret = None`) —, whatever follows it on the line);
//! * a URL's `sig=` query parameter (an Azure SAS signature);
//! * `.netrc` entries: the password of `machine <host> login <user> password <secret>`, on
//!   one line or several;
//! * `docker login … -p <secret>`;
//! * the argument of `--password`, `--token`, `--api-key`, `--secret`; `mysql -pX`;
//!   `curl -u user:pass`;
//! * the password of a URL (`postgres://user:pw@host`);
//! * in JSON objects, the string value of any key that names a secret (`password`,
//!   `api_key`, `github_token`, `authorization`, …).
//!
//! Matching is by shape, so it can miss a secret with no recognisable shape, and it can cut
//! something harmless that looks like one; the tests pin both directions for common text.
//! The search is one pass per string (tables of each pattern's first and second byte, then the
//! few patterns that start with those two bytes, ASCII case-insensitively) plus checks around
//! each hit, each bounded (a command's line is looked at for 1 KiB at most): linear in the
//! payload.

use serde_json::Value;

/// How a hit is checked and what is replaced.
#[derive(Clone, Copy)]
enum Rule {
    /// A provider prefix: the token after it must have `min` chars of `class`. `exact`: the
    /// prefix must be in the case written (`AKIA`, `SK`), not any case.
    Prefix {
        kind: &'static str,
        min: usize,
        max: usize,
        class: Class,
        exact: bool,
    },
    /// `--password X`, `--password=X` (and the other secret flags): the next argument.
    Flag,
    /// `mysql … -pX`: the password glued to `-p`, on the command's line.
    MysqlP,
    /// `curl … -u user:pass` (`--user`): what follows the colon.
    CurlUser,
    /// `len` hex digits before the hit, the hit, then 1–2 digits (Mailchimp's `…-us21`).
    HexBefore { kind: &'static str, len: usize },
    /// `bearer <token>`.
    Bearer,
    /// `authorization:` header: the rest of the line (or up to a closing quote).
    Authorization,
    /// `-----BEGIN ` … private key block.
    PemBegin,
    /// A secret-naming word followed by `=` or `:` and a value.
    Assignment,
    /// `://user:password@`.
    UrlPassword,
    /// A URL's query parameter that is a signature (`…?sv=…&sig=<sig>`, Azure SAS): after `?`
    /// or `&`, up to the next `&`, quote or space.
    QueryParam,
    /// `.netrc`: `machine <host> login <user> password <secret>`, on one line or several.
    Netrc,
    /// `docker login -u bob -p <secret>`: the argument of `-p` on a `docker login` line.
    DockerP,
}

#[derive(Clone, Copy)]
enum Class {
    /// Letters, digits, `_`, `-`.
    Token,
    /// Upper-case letters and digits.
    Upper,
    /// Base64url plus `.` (JWT).
    Jwt,
    /// Hex digits, and then no further letter or digit.
    Hex,
    /// Letters and digits, and then no further one.
    Alnum,
    /// A URL path: token characters and `/`.
    Path,
    /// A bot token: token characters and `:`.
    Bot,
}

/// A prefix matched in any case.
const fn pre(kind: &'static str, min: usize, max: usize, class: Class) -> Rule {
    Rule::Prefix {
        kind,
        min,
        max,
        class,
        exact: false,
    }
}

/// A prefix matched only in the case written.
const fn exact(kind: &'static str, min: usize, max: usize, class: Class) -> Rule {
    Rule::Prefix {
        kind,
        min,
        max,
        class,
        exact: true,
    }
}

/// Patterns (matched ASCII case-insensitively) and their rules.
const PATTERNS: &[(&str, Rule)] = &[
    ("sk-", pre("api-key", 20, 256, Class::Token)),
    ("sk_live_", pre("stripe-key", 16, 128, Class::Token)),
    ("rk_live_", pre("stripe-key", 16, 128, Class::Token)),
    ("sk_test_", pre("stripe-key", 16, 128, Class::Token)),
    ("ghp_", pre("github-token", 20, 255, Class::Token)),
    ("gho_", pre("github-token", 20, 255, Class::Token)),
    ("ghu_", pre("github-token", 20, 255, Class::Token)),
    ("ghs_", pre("github-token", 20, 255, Class::Token)),
    ("ghr_", pre("github-token", 20, 255, Class::Token)),
    ("github_pat_", pre("github-token", 20, 255, Class::Token)),
    ("glpat-", pre("gitlab-token", 20, 64, Class::Token)),
    ("AKIA", exact("aws-access-key-id", 16, 16, Class::Upper)),
    ("ASIA", exact("aws-access-key-id", 16, 16, Class::Upper)),
    ("xoxb-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxp-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxa-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxr-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxs-", pre("slack-token", 10, 255, Class::Token)),
    ("xapp-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxe-", pre("slack-token", 10, 255, Class::Token)),
    ("xoxe.xoxp-", pre("slack-token", 10, 255, Class::Token)),
    // Chat webhooks and bot URLs: the id and token in the path.
    (
        "hooks.slack.com/services/",
        pre("slack-webhook", 20, 256, Class::Path),
    ),
    (
        "hooks.slack.com/workflows/",
        pre("slack-webhook", 20, 256, Class::Path),
    ),
    (
        "discord.com/api/webhooks/",
        pre("discord-webhook", 20, 256, Class::Path),
    ),
    (
        "discordapp.com/api/webhooks/",
        pre("discord-webhook", 20, 256, Class::Path),
    ),
    (
        "api.telegram.org/bot",
        pre("telegram-bot-token", 30, 128, Class::Bot),
    ),
    (
        "outlook.office.com/webhook/",
        pre("teams-webhook", 20, 512, Class::Path),
    ),
    // Payments, mail, messaging (Twilio `SK`/`AC` + 32 hex, SendGrid `SG.x.y`).
    ("sq0atp-", pre("square-token", 22, 60, Class::Token)),
    ("sq0csp-", pre("square-secret", 40, 60, Class::Token)),
    ("EAAA", exact("square-token", 60, 80, Class::Token)),
    ("SK", exact("twilio-key", 32, 32, Class::Hex)),
    ("AC", exact("twilio-account", 32, 32, Class::Hex)),
    ("SG.", exact("sendgrid-key", 33, 97, Class::Jwt)),
    ("key-", exact("mailgun-key", 32, 32, Class::Alnum)),
    (
        "-us",
        Rule::HexBefore {
            kind: "mailchimp-key",
            len: 32,
        },
    ),
    // Hosting, data, developer services.
    ("shpat_", pre("shopify-token", 32, 32, Class::Hex)),
    ("shpca_", pre("shopify-token", 32, 32, Class::Hex)),
    ("shppa_", pre("shopify-token", 32, 32, Class::Hex)),
    ("shpss_", pre("shopify-secret", 32, 32, Class::Hex)),
    ("dop_v1_", pre("digitalocean-token", 64, 64, Class::Hex)),
    ("doo_v1_", pre("digitalocean-token", 64, 64, Class::Hex)),
    ("dor_v1_", pre("digitalocean-token", 64, 64, Class::Hex)),
    ("HRKU-", exact("heroku-key", 40, 64, Class::Token)),
    (
        "pypi-AgEIcHlwaS5vcmc",
        exact("pypi-token", 50, 256, Class::Token),
    ),
    ("dapi", exact("databricks-token", 32, 32, Class::Hex)),
    ("lin_api_", pre("linear-key", 40, 40, Class::Token)),
    ("dp.pt.", exact("doppler-token", 40, 50, Class::Token)),
    ("dp.st.", exact("doppler-token", 40, 50, Class::Token)),
    ("dp.sa.", exact("doppler-token", 40, 50, Class::Token)),
    ("dp.ct.", exact("doppler-token", 40, 50, Class::Token)),
    ("NRAK-", exact("newrelic-key", 27, 27, Class::Upper)),
    ("dckr_pat_", pre("docker-token", 27, 64, Class::Token)),
    ("rubygems_", pre("rubygems-token", 48, 48, Class::Hex)),
    ("glsa_", pre("grafana-token", 32, 64, Class::Token)),
    ("aiza", pre("google-api-key", 35, 35, Class::Token)),
    ("npm_", pre("npm-token", 36, 36, Class::Token)),
    ("hf_", pre("huggingface-token", 30, 64, Class::Token)),
    ("eyj", pre("jwt", 30, 8192, Class::Jwt)),
    ("bearer ", Rule::Bearer),
    ("authorization:", Rule::Authorization),
    ("-----begin ", Rule::PemBegin),
    ("password", Rule::Assignment),
    ("passwd", Rule::Assignment),
    ("passphrase", Rule::Assignment),
    ("secret", Rule::Assignment),
    ("token", Rule::Assignment),
    ("api_key", Rule::Assignment),
    ("api-key", Rule::Assignment),
    ("apikey", Rule::Assignment),
    ("access_key", Rule::Assignment),
    ("private_key", Rule::Assignment),
    ("app_key", Rule::Assignment),
    ("accountkey", Rule::Assignment),
    ("sharedaccesskey", Rule::Assignment),
    ("--password", Rule::Flag),
    ("--passwd", Rule::Flag),
    ("--token", Rule::Flag),
    ("--api-key", Rule::Flag),
    ("--secret", Rule::Flag),
    ("--client-secret", Rule::Flag),
    ("mysql", Rule::MysqlP),
    ("mariadb", Rule::MysqlP),
    ("curl", Rule::CurlUser),
    ("://", Rule::UrlPassword),
    ("sig=", Rule::QueryParam),
    ("machine", Rule::Netrc),
    ("docker", Rule::DockerP),
];

/// JSON keys whose string values are secrets: compared lower-cased, as the whole key or its
/// last `_`/`-`-separated part(s).
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "client_secret",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "api_key",
    "apikey",
    "access_key",
    "secret_access_key",
    "private_key",
    "authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
];

/// For each byte, the patterns that start with it (either case), as a bit set over
/// [`PATTERNS`]: a position is rejected by one lookup, and a candidate is compared with the
/// two or three patterns of its letter only. Every state write runs this over every string
/// (contract §4), so it must cost little more than reading the text.
const fn first_bytes() -> [u128; 256] {
    assert!(PATTERNS.len() <= 128);
    let mut t = [0u128; 256];
    let mut i = 0;
    while i < PATTERNS.len() {
        let c = PATTERNS[i].0.as_bytes()[0];
        t[c.to_ascii_lowercase() as usize] |= 1 << i;
        t[c.to_ascii_uppercase() as usize] |= 1 << i;
        i += 1;
    }
    t
}

static FIRST: [u128; 256] = first_bytes();

/// The same for each pattern's second byte: a candidate must pass both tables before any
/// pattern is compared, so the frequent letters that start many patterns cost one more
/// lookup, not a comparison each.
const fn second_bytes() -> [u128; 256] {
    let mut t = [0u128; 256];
    let mut i = 0;
    while i < PATTERNS.len() {
        let c = PATTERNS[i].0.as_bytes()[1];
        t[c.to_ascii_lowercase() as usize] |= 1 << i;
        t[c.to_ascii_uppercase() as usize] |= 1 << i;
        i += 1;
    }
    t
}

static SECOND: [u128; 256] = second_bytes();

/// The longest pattern matching at `i` (ASCII case-insensitively), as (end, pattern index).
/// A plain scan, not an automaton: building an Aho–Corasick automaton for these patterns
/// costs about 0.1 ms per process, more than scanning a typical payload.
fn match_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut set = FIRST[b[i] as usize];
    if set == 0 {
        return None;
    }
    set &= b.get(i + 1).map_or(0, |c| SECOND[*c as usize]);
    let mut best: Option<(usize, usize)> = None;
    while set != 0 {
        let k = set.trailing_zeros() as usize;
        set &= set - 1;
        let p = PATTERNS[k].0.as_bytes();
        if b.len() - i >= p.len()
            && b[i..i + p.len()].eq_ignore_ascii_case(p)
            && best.is_none_or(|(end, _)| i + p.len() > end)
        {
            best = Some((i + p.len(), k));
        }
    }
    best
}

/// Redacts every string (and secret-named value) in `v`, in place. Returns how many secrets
/// were replaced.
pub fn value(v: &mut Value) -> usize {
    walk(v, 0)
}

fn walk(v: &mut Value, depth: usize) -> usize {
    match v {
        Value::String(s) => match text(s) {
            Some((clean, n)) => {
                *s = clean;
                n
            }
            None => 0,
        },
        Value::Array(a) if depth < 64 => a.iter_mut().map(|x| walk(x, depth + 1)).sum(),
        Value::Object(o) if depth < 64 => o
            .iter_mut()
            .map(|(k, x)| match x {
                Value::String(s) if secret_key(k) && !is_placeholder(s) => {
                    *s = "[REDACTED]".into();
                    1
                }
                _ => walk(x, depth + 1),
            })
            .sum(),
        _ => 0,
    }
}

/// Whether a JSON key names a secret: one of [`SECRET_KEYS`], or ending in `_`/`-` and one,
/// compared ASCII case-insensitively without allocating (every key of every state file is
/// asked).
fn secret_key(key: &str) -> bool {
    let k = key.as_bytes();
    SECRET_KEYS.iter().any(|s| {
        let s = s.as_bytes();
        k.len() >= s.len()
            && k[k.len() - s.len()..].eq_ignore_ascii_case(s)
            && (k.len() == s.len() || matches!(k[k.len() - s.len() - 1], b'_' | b'-'))
    })
}

/// A value that is clearly not a secret itself: empty, a reference, a mask.
fn is_placeholder(v: &str) -> bool {
    let t = v.trim();
    t.is_empty()
        || t.starts_with("${")
        || t.starts_with("[REDACTED")
        || t.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
}

/// Redacts a string. `None` when nothing was found (the common case: no allocation).
pub fn text(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut cuts: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some((end, k)) = match_at(b, i)
            && let Some((start, stop, label)) = check(b, i, end, PATTERNS[k])
            && cuts.last().is_none_or(|c| c.1 <= start)
        {
            cuts.push((start, stop, label));
            i = stop.max(i + 1);
            continue;
        }
        i += 1;
    }
    if cuts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (start, end, label) in &cuts {
        out.push_str(&s[at..*start]);
        out.push_str(label);
        at = *end;
    }
    out.push_str(&s[at..]);
    Some((out, cuts.len()))
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn in_class(c: u8, class: Class) -> bool {
    match class {
        Class::Token => c.is_ascii_alphanumeric() || c == b'_' || c == b'-',
        Class::Upper => c.is_ascii_uppercase() || c.is_ascii_digit(),
        Class::Jwt => c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.',
        Class::Hex => c.is_ascii_hexdigit(),
        Class::Alnum => c.is_ascii_alphanumeric(),
        Class::Path => c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'/',
        Class::Bot => c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b':',
    }
}

fn run(b: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> usize {
    b[from..].iter().take_while(|c| pred(**c)).count()
}

/// Checks a hit; returns the byte range to replace and its replacement.
fn check(
    b: &[u8],
    start: usize,
    end: usize,
    (pattern, rule): (&str, Rule),
) -> Option<(usize, usize, String)> {
    match rule {
        Rule::Prefix {
            kind,
            min,
            max,
            class,
            exact,
        } => {
            if start > 0 && (is_word(b[start - 1]) || b[start - 1] == b'-') {
                return None;
            }
            if exact && pattern.as_bytes() != &b[start..end] {
                return None; // `AKIA`, `SK`, `dapi` only in their own case: "akia" is prose
            }
            let mut n = run(b, end, |c| in_class(c, class));
            if matches!(class, Class::Jwt) {
                // A token at the end of a sentence: its full stop is not part of it.
                n -= b[end..end + n]
                    .iter()
                    .rev()
                    .take_while(|c| **c == b'.')
                    .count();
            }
            if matches!(class, Class::Hex | Class::Alnum)
                && b.get(end + n).is_some_and(u8::is_ascii_alphanumeric)
            {
                return None; // a longer word, not a key of this length
            }
            // A key cut short where a text was clipped for storage or display (`…`, `...`)
            // is still most of a key: what is left of it goes too.
            let cut_short = n >= 4 && n < min && {
                let rest = &b[end + n..];
                rest.starts_with("…".as_bytes()) || rest.starts_with(b"...")
            };
            if (n < min && !cut_short) || n > max {
                return None;
            }
            if kind == "jwt" || kind == "sendgrid-key" {
                // header.payload.signature (SG.id.secret), each part non-empty.
                let tok = &b[start..end + n];
                let dots = tok.iter().filter(|c| **c == b'.').count();
                if dots != 2 || contains(tok, b"..") {
                    return None;
                }
            }
            Some((start, end + n, format!("[REDACTED:{kind}]")))
        }
        Rule::Flag => {
            if !matches!(b.get(end), Some(b' ' | b'=')) {
                return None; // `--password-file`, `--tokens`
            }
            let (from, to) = argument(b, end + 1)?;
            Some((from, to, "[REDACTED]".into()))
        }
        Rule::MysqlP => {
            word_start(b, start)?;
            command_args(b, end).find_map(|(from, to)| {
                let a = &b[from..to];
                (a.len() > 2 && a[0] == b'-' && a[1] == b'p' && !is_placeholder_bytes(&a[2..]))
                    .then(|| (from + 2, to, "[REDACTED]".into()))
            })
        }
        Rule::CurlUser => {
            word_start(b, start)?;
            let mut args = command_args(b, end);
            while let Some((from, to)) = args.next() {
                let a = &b[from..to];
                let value = if a == b"-u" || a == b"--user" {
                    args.next()
                } else if let Some(rest) = a.strip_prefix(b"--user=") {
                    Some((to - rest.len(), to))
                } else if a.len() > 2 && a.starts_with(b"-u") {
                    Some((from + 2, to))
                } else {
                    None
                };
                let Some((vf, vt)) = value else { continue };
                let vt = vt - usize::from(matches!(b[vt - 1], b'"' | b'\''));
                let colon = b[vf..vt].iter().position(|c| *c == b':')?;
                let pw = vf + colon + 1;
                return (pw < vt && !is_placeholder_bytes(&b[pw..vt]))
                    .then(|| (pw, vt, "[REDACTED:password]".into()));
            }
            None
        }
        Rule::HexBefore { kind, len } => {
            let from = start.checked_sub(len)?;
            let digits = run(b, end, |c| c.is_ascii_digit());
            if !(1..=2).contains(&digits)
                || b.get(end + digits).is_some_and(|c| is_word(*c))
                || !b[from..start].iter().all(u8::is_ascii_hexdigit)
                || (from > 0 && is_word(b[from - 1]))
            {
                return None;
            }
            Some((from, end + digits, format!("[REDACTED:{kind}]")))
        }
        Rule::Bearer => {
            let n = run(b, end, |c| {
                c.is_ascii_alphanumeric() || b"._~+/=-".contains(&c)
            });
            (n >= 8).then(|| (end, end + n, "[REDACTED:bearer]".into()))
        }
        Rule::Authorization => {
            let from = end + run(b, end, |c| c == b' ' || c == b'\t');
            let n = run(b, from, |c| !matches!(c, b'\n' | b'\r' | b'"' | b'\''));
            let value = std::str::from_utf8(&b[from..from + n]).ok()?;
            (n > 0 && !is_placeholder(value))
                .then(|| (from, from + n, "[REDACTED:authorization]".into()))
        }
        Rule::PemBegin => {
            let rest = &b[end..];
            let line_end = rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len());
            let header = &rest[..line_end];
            // `RSA PRIVATE KEY`, `OPENSSH PRIVATE KEY`, `PGP PRIVATE KEY BLOCK`, …
            if !contains(header, b"PRIVATE KEY") || !contains(header, b"-----") {
                return None;
            }
            let stop = find(&b[end..], b"-----END ")
                .map(|i| end + i + b"-----END ".len())
                .and_then(|i| find(&b[i..], b"-----").map(|j| i + j + b"-----".len()))
                .unwrap_or(b.len());
            Some((start, stop, "[REDACTED:private-key]".into()))
        }
        Rule::Assignment => assignment(b, start, end),
        Rule::QueryParam => {
            if start == 0 || !matches!(b[start - 1], b'?' | b'&') {
                return None;
            }
            let n = run(b, end, |c| {
                !c.is_ascii_whitespace() && !matches!(c, b'&' | b'"' | b'\'' | b'#')
            });
            (n >= 8).then(|| (end, end + n, "[REDACTED]".into()))
        }
        Rule::Netrc => {
            word_start(b, start)?;
            if !matches!(b.get(end), Some(b' ' | b'\t')) {
                return None;
            }
            // The entry runs to the next `machine`/`default` or a blank line, at most 512 bytes.
            let limit = b.len().min(end + 512);
            // The host, then `key value` pairs of netrc's own keys only: prose that happens to
            // start with "machine" has other words.
            let words = netrc_words(&b[..limit], end);
            let mut it = words.into_iter().skip(1);
            while let (Some((kf, kt)), Some((vf, vt))) = (it.next(), it.next()) {
                match &b[kf..kt] {
                    b"password" | b"passwd" => {
                        return (!is_placeholder_bytes(&b[vf..vt]))
                            .then(|| (vf, vt, "[REDACTED]".into()));
                    }
                    b"login" | b"account" | b"port" => {}
                    _ => return None,
                }
            }
            None
        }
        Rule::DockerP => {
            word_start(b, start)?;
            let mut args = command_args(b, end);
            let mut login = false;
            while let Some((from, to)) = args.next() {
                let a = &b[from..to];
                if a == b"login" {
                    login = true;
                } else if login && a == b"-p" {
                    let (mut vf, mut vt) = args.next()?;
                    if vt - vf >= 2 && matches!(b[vf], b'"' | b'\'') && b[vt - 1] == b[vf] {
                        vf += 1;
                        vt -= 1;
                    }
                    return (vt > vf && !is_placeholder_bytes(&b[vf..vt]))
                        .then(|| (vf, vt, "[REDACTED]".into()));
                }
            }
            None
        }
        Rule::UrlPassword => {
            // scheme://user:password@host — the authority ends at '/', '?', '#' or space.
            let auth_len = run(b, end, |c| {
                !matches!(c, b'/' | b'?' | b'#') && !c.is_ascii_whitespace()
            });
            let auth = &b[end..end + auth_len];
            let at = auth.iter().rposition(|c| *c == b'@')?;
            let colon = auth[..at].iter().position(|c| *c == b':')?;
            let (from, to) = (end + colon + 1, end + at);
            let pw = std::str::from_utf8(&b[from..to]).ok()?;
            (to > from && !is_placeholder(pw)).then(|| (from, to, "[REDACTED:password]".into()))
        }
    }
}

/// `<name>[quote][spaces](=|:)[spaces][quote]<value>`, where the name ends with the hit (so
/// `DB_PASSWORD=` counts, `passwords are` does not).
fn assignment(b: &[u8], start: usize, end: usize) -> Option<(usize, usize, String)> {
    if end < b.len() && is_word(b[end]) {
        return None; // "tokens", "secretary"
    }
    let _ = start;
    let mut i = end;
    if i < b.len() && matches!(b[i], b'"' | b'\'') {
        i += 1;
    }
    let before = run(b, i, |c| c == b' ' || c == b'\t');
    i += before;
    if i >= b.len() || !matches!(b[i], b'=' | b':') {
        return None;
    }
    let sep = b[i];
    // `==`, `:=`/`::` (code) and URL schemes are not assignments of a literal.
    if i + 1 < b.len() && matches!(b[i + 1], b'=' | b':' | b'/') {
        return None;
    }
    i += 1;
    let after = run(b, i, |c| c == b' ' || c == b'\t');
    i += after;
    let quote = (i < b.len() && matches!(b[i], b'"' | b'\'')).then(|| b[i]);
    if quote.is_some() {
        i += 1;
    }
    let n = match quote {
        Some(q) => run(b, i, |c| c != q && c != b'\n'),
        // `token = next_token()` is code, not a literal: with spaces around `=`, only a
        // quoted value counts, or one shaped like a credential (the `aws_secret_access_key =
        // …` of `~/.aws/credentials`) or like a typed secret (`password = hunter22 and …`),
        // whatever follows it on the line.
        None if sep == b'=' && before + after > 0 => {
            let n = run(b, i, |c| {
                !c.is_ascii_whitespace() && !matches!(c, b',' | b';')
            });
            // A sentence's full stop after the value is not part of it.
            let n = n - b[i..i + n].iter().rev().take_while(|c| **c == b'.').count();
            let v = &b[i..i + n];
            if !credential_shaped(v) && !typed_secret(v) {
                return None;
            }
            n
        }
        None => run(b, i, |c| {
            !c.is_ascii_whitespace()
                && !matches!(c, b'&' | b',' | b';' | b'"' | b'\'' | b')' | b'}' | b'(')
        }),
    };
    let value = std::str::from_utf8(&b[i..i + n]).ok()?;
    let call = quote.is_none() && b.get(i + n) == Some(&b'(');
    let small_number = n < 6 && value.bytes().all(|c| c.is_ascii_digit());
    if n == 0 || call || small_number || is_placeholder(value) || value.starts_with('$') {
        return None;
    }
    Some((i, i + n, "[REDACTED]".into()))
}

/// A bare value that looks like a key, not code: 16 or more base64 characters (no `_`, `.`
/// or `(` of an identifier or a call) with upper- and lower-case letters and digits.
fn credential_shaped(v: &[u8]) -> bool {
    v.len() >= 16
        && v.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+/=".contains(c))
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_uppercase)
        && v.iter().any(u8::is_ascii_lowercase)
}

/// A bare value after `name = ` that reads as a secret someone typed, not code: 6 or more
/// characters, none of the brackets, dots, `<>` or `$` of an expression, a reference or a
/// placeholder, and a digit or a symbol among them (`hunter22`, `s3cr3t!`; not `None`,
/// `required`, `accessToken`, `os.environ[…]`).
fn typed_secret(v: &[u8]) -> bool {
    v.len() >= 6
        && !v.iter().any(|c| b"()[]{}.<>$`".contains(c))
        && v.iter()
            .any(|c| c.is_ascii_digit() || (!c.is_ascii_alphanumeric() && *c != b'_'))
        && !v.iter().all(u8::is_ascii_digit)
}

/// The words of a `.netrc` entry from `from`: separated by spaces, tabs and single new lines;
/// a blank line ends the entry.
fn netrc_words(b: &[u8], from: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < b.len() {
        let gap = run(b, i, |c| c.is_ascii_whitespace());
        if b[i..i + gap].iter().filter(|c| **c == b'\n').count() > 1 {
            break;
        }
        i += gap;
        let n = run(b, i, |c| !c.is_ascii_whitespace());
        if n == 0 {
            break;
        }
        out.push((i, i + n));
        i += n;
    }
    out
}

fn is_placeholder_bytes(v: &[u8]) -> bool {
    std::str::from_utf8(v).map_or(true, |v| is_placeholder(v) || v.starts_with('$'))
}

/// `Some` when the hit at `start` begins a word (a command's name: `mysql`, not `nomysql`).
fn word_start(b: &[u8], start: usize) -> Option<()> {
    (start == 0 || !is_word(b[start - 1])).then_some(())
}

/// The argument after a flag, from `at`: quoted (the inside) or up to a space; `None` for
/// none, another flag or a reference (`$PW`).
fn argument(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let quote = b.get(at).filter(|c| matches!(c, b'"' | b'\'')).copied();
    let from = at + usize::from(quote.is_some());
    let n = match quote {
        Some(q) => run(b, from, |c| c != q && c != b'\n'),
        None => run(b, from, |c| {
            !c.is_ascii_whitespace() && !matches!(c, b';' | b'|' | b'&')
        }),
    };
    let v = &b[from..from + n];
    (n > 0 && v[0] != b'-' && !is_placeholder_bytes(v)).then_some((from, from + n))
}

/// The space-separated arguments of the command line starting at `from`, up to its end (a
/// new line, `|`, `;`, `&`) and at most 1 KiB on: bounded, so a long line of command names
/// costs no more than a short one each.
fn command_args(b: &[u8], from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let limit = b.len().min(from + 1024);
    let stop = from
        + run(&b[..limit], from, |c| {
            !matches!(c, b'\n' | b'|' | b';' | b'&')
        });
    let mut i = from;
    std::iter::from_fn(move || {
        i += run(&b[..stop], i, |c| c == b' ' || c == b'\t');
        if i >= stop {
            return None;
        }
        let n = run(&b[..stop], i, |c| c != b' ' && c != b'\t');
        let arg = (i, i + n);
        i += n;
        Some(arg)
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(s: &str) -> String {
        text(s).map_or_else(|| s.to_string(), |(t, _)| t)
    }

    #[test]
    fn provider_keys_are_cut() {
        let cases = [
            (
                "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx end",
                "key [REDACTED:api-key] end",
            ),
            (
                "OPENAI=sk-proj-1234567890abcdefghij",
                "OPENAI=[REDACTED:api-key]",
            ),
            (
                "ghp_0123456789abcdefghijABCDEFGHIJ012345",
                "[REDACTED:github-token]",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
                "[REDACTED:github-token]",
            ),
            ("glpat-abcdefghij0123456789", "[REDACTED:gitlab-token]"),
            (
                "aws AKIAIOSFODNN7EXAMPLE x",
                "aws [REDACTED:aws-access-key-id] x",
            ),
            ("xoxb-1234567890-abcdefghij", "[REDACTED:slack-token]"),
            (
                "AIzaSyA-1234567890abcdefghijklmnopqrstu",
                "[REDACTED:google-api-key]",
            ),
            (
                "stripe sk_live_abcdefghijklmnop1234",
                "stripe [REDACTED:stripe-key]",
            ),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt [REDACTED:jwt]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn a_key_cut_short_by_a_clip_still_goes() {
        assert_eq!(
            r("Slack: xoxb-20486..."),
            "Slack: [REDACTED:slack-token]..."
        );
        assert_eq!(r("key ghp_R4nd0mF4k3…"), "key [REDACTED:github-token]…");
        // Not a clipped key: too little of one, or no mark of a cut.
        assert_eq!(r("keys look like sk-..."), "keys look like sk-...");
        assert_eq!(r("xoxb-20486 is short"), "xoxb-20486 is short");
    }

    #[test]
    fn bearer_authorization_and_assignments() {
        assert_eq!(
            r("curl -H 'Authorization: Bearer abc.def-123456' https://x"),
            "curl -H 'Authorization: [REDACTED:authorization]' https://x"
        );
        assert_eq!(
            r("token is Bearer abcdefgh12345678"),
            "token is Bearer [REDACTED:bearer]"
        );
        assert_eq!(r("password=hunter22 next"), "password=[REDACTED] next");
        assert_eq!(
            r("export DB_PASSWORD='s3cr3t pass'"),
            "export DB_PASSWORD='[REDACTED]'"
        );
        assert_eq!(
            r(r#"{"api_key": "abcd1234"}"#),
            r#"{"api_key": "[REDACTED]"}"#
        );
        assert_eq!(r("Secret: topsecretvalue"), "Secret: [REDACTED]");
        assert_eq!(
            r("psql postgres://app:pw123@db:5432/x"),
            "psql postgres://app:[REDACTED:password]@db:5432/x"
        );
    }

    #[test]
    fn private_key_blocks_go_whole() {
        let pem = "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nz";
        assert_eq!(r(pem), "a\n[REDACTED:private-key]\nz");
        let cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA";
        assert_eq!(r(cut), "[REDACTED:private-key]");
        let public = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----";
        assert_eq!(r(public), public);
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for s in [
            "ask-me-anything and task-force are words",
            "the max_tokens: 4096 setting and input_tokens",
            "passwords are hashed; the token bucket refills",
            "let token = next_token()?;",
            "if password == expected {",
            "password: ${DB_PASSWORD}",
            "https://example.com/path?x=1",
            "akia is not a key",
            "Bearer short",
            "",
        ] {
            assert_eq!(r(s), s, "{s}");
        }
    }

    #[test]
    fn json_values_under_secret_keys_are_replaced() {
        let mut v = json!({
            "tool_input": {"command": "deploy --token=abcdef123456", "env": {"GITHUB_TOKEN": "plain", "max_tokens": 5, "token_count": "3"}},
            "password": "x1", "Authorization": "Basic dXNlcjpwYXNz", "note": "fine",
            "list": ["ghp_0123456789abcdefghijABCDEFGHIJ012345"]
        });
        let n = value(&mut v);
        assert_eq!(v["tool_input"]["command"], "deploy --token=[REDACTED]");
        assert_eq!(v["tool_input"]["env"]["GITHUB_TOKEN"], "[REDACTED]");
        assert_eq!(v["tool_input"]["env"]["max_tokens"], 5);
        assert_eq!(v["tool_input"]["env"]["token_count"], "3");
        assert_eq!(v["password"], "[REDACTED]");
        assert_eq!(v["Authorization"], "[REDACTED]");
        assert_eq!(v["note"], "fine");
        assert_eq!(v["list"][0], "[REDACTED:github-token]");
        assert_eq!(n, 5);
    }

    #[test]
    fn multibyte_text_around_secrets_survives() {
        assert_eq!(r("é password=ü1234 ü"), "é password=[REDACTED] ü");
        assert_eq!(
            r("日本 ghp_0123456789abcdefghijABCDEFGHIJ012345 語"),
            "日本 [REDACTED:github-token] 語"
        );
    }

    /// Secrets in the shapes people paste (issue 35): one case per shape.
    #[test]
    fn pasted_shapes_are_cut() {
        let hex32 = "0123456789abcdef0123456789abcdef";
        let tok = |n: usize| -> String {
            "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3".repeat(4)[..n].to_string()
        };
        let cases: Vec<(String, String)> = vec![
            (
                "see eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U. Then".into(),
                "see [REDACTED:jwt]. Then".into(),
            ),
            (
                "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n".into(),
                "[default]\naws_secret_access_key = [REDACTED]\n".into(),
            ),
            (
                "aws_session_token = FwoGZXIvYXdzEBYaDHhBTEXAMPLE1234567890".into(),
                "aws_session_token = [REDACTED]".into(),
            ),
            (
                "post https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now".into(),
                "post https://[REDACTED:slack-webhook] now".into(),
            ),
            (
                "https://discord.com/api/webhooks/123456789012345678/abcDEF-ghi_JKL0123456789".into(),
                "https://[REDACTED:discord-webhook]".into(),
            ),
            (
                "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage".into(),
                "https://[REDACTED:telegram-bot-token]/sendMessage".into(),
            ),
            ("deploy --password hunter22x --v".into(), "deploy --password [REDACTED] --v".into()),
            ("deploy --password=hunter22x".into(), "deploy --password=[REDACTED]".into()),
            ("login --token 'abc def'".into(), "login --token '[REDACTED]'".into()),
            ("mysql -u root -pS3cretPw app".into(), "mysql -u root -p[REDACTED] app".into()),
            ("mysqldump -pS3cretPw app | gzip".into(), "mysqldump -p[REDACTED] app | gzip".into()),
            (
                "curl -u alice:Passw0rd123 https://x".into(),
                "curl -u alice:[REDACTED:password] https://x".into(),
            ),
            (
                "curl -s --user 'alice:Passw0rd123' https://x".into(),
                "curl -s --user 'alice:[REDACTED:password]' https://x".into(),
            ),
            (
                "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGXfakeKEYmaterial\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\nafter".into(),
                "[REDACTED:private-key]\nafter".into(),
            ),
            (
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0B\n-----END ENCRYPTED PRIVATE KEY-----".into(),
                "[REDACTED:private-key]".into(),
            ),
            (
                "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net".into(),
                "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net".into(),
            ),
            (format!("twilio SK{hex32} x"), "twilio [REDACTED:twilio-key] x".into()),
            (format!("sid AC{hex32}"), "sid [REDACTED:twilio-account]".into()),
            (
                format!("SG.{}.{}", tok(22), tok(43)),
                "[REDACTED:sendgrid-key]".into(),
            ),
            (format!("key-{hex32}"), "[REDACTED:mailgun-key]".into()),
            (format!("key-{}", tok(32)), "[REDACTED:mailgun-key]".into()),
            (format!("SG.{}.{}", tok(16), tok(16)), "[REDACTED:sendgrid-key]".into()),
            (format!("mc {hex32}-us21 x"), "mc [REDACTED:mailchimp-key] x".into()),
            (format!("shpat_{hex32}"), "[REDACTED:shopify-token]".into()),
            (format!("dop_v1_{hex32}{hex32}"), "[REDACTED:digitalocean-token]".into()),
            (format!("DD_API_KEY={hex32}"), "DD_API_KEY=[REDACTED]".into()),
            (format!("DD_APP_KEY={hex32}"), "DD_APP_KEY=[REDACTED]".into()),
            (format!("HRKU-AA{}", tok(58)), "[REDACTED:heroku-key]".into()),
            (format!("sq0atp-{}", tok(22)), "[REDACTED:square-token]".into()),
            (format!("EAAA{}", tok(60)), "[REDACTED:square-token]".into()),
            (format!("pypi-AgEIcHlwaS5vcmc{}", tok(60)), "[REDACTED:pypi-token]".into()),
            (format!("dapi{hex32}"), "[REDACTED:databricks-token]".into()),
            (format!("lin_api_{}", tok(40)), "[REDACTED:linear-key]".into()),
            (format!("dp.pt.{}", tok(43)), "[REDACTED:doppler-token]".into()),
            (
                "postgres://app:Hunter2Sekrit@db/app".into(),
                "postgres://app:[REDACTED:password]@db/app".into(),
            ),
        ];
        for (input, want) in &cases {
            assert_eq!(&r(input), want, "{input}");
        }
    }

    /// Secrets as people write them (issue 43): one row per shape of the table.
    #[test]
    fn secrets_as_people_write_them_are_cut() {
        let cases = [
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY # prod",
                "aws_secret_access_key = [REDACTED] # prod",
            ),
            (
                "secret = s3cr3t-Value and more",
                "secret = [REDACTED] and more",
            ),
            ("password = hunter22", "password = [REDACTED]"),
            ("the password = hunter22.", "the password = [REDACTED]."),
            ("DB_PASSWORD = Hunter2Sekrit!", "DB_PASSWORD = [REDACTED]"),
            (
                "api_key = ak_12345abcdef and then",
                "api_key = [REDACTED] and then",
            ),
            (
                "token = tok_9f8e7d6c and more",
                "token = [REDACTED] and more",
            ),
            (
                "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&sp=r&sig=AbC%2Bdef123456xyz%3D&se=2030",
                "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&sp=r&sig=[REDACTED]&se=2030",
            ),
            (
                "machine api.example.com login bob password Hunter2pw",
                "machine api.example.com login bob password [REDACTED]",
            ),
            (
                "machine api.example.com\n  login bob\n  password Hunter2pw\n",
                "machine api.example.com\n  login bob\n  password [REDACTED]\n",
            ),
            (
                "docker login -u bob -p Dckr5ecret registry.example.com",
                "docker login -u bob -p [REDACTED] registry.example.com",
            ),
            (
                "docker login registry.io -u bob -p 'Dckr5ecret'",
                "docker login registry.io -u bob -p '[REDACTED]'",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r(input), want, "{input}");
        }
    }

    #[test]
    fn prose_and_code_beside_the_spaced_shapes_are_left_alone() {
        for s in [
            "the password field is empty",
            "the password = required field",
            "token = None",
            "secret = accessToken",
            "api_key = os.environ['API_KEY']",
            "password = <your password>",
            "token = 123456",
            "DB_PASSWORD = process.env.DB_PASSWORD",
            "the machine learning model and the password policy",
            "machine a login b\n\npassword later",
            "docker run -p 8080:80 img",
            "docker login -u bob --password-stdin",
            "see ?sig=short and design=x",
        ] {
            assert_eq!(r(s), s, "{s}");
        }
    }

    #[test]
    fn commands_and_words_beside_the_new_shapes_are_left_alone() {
        for s in [
            "mkdir -p src && cargo test -p omc-hooks",
            "docker run -u 1000:1000 img",
            "curl -u $USER:$TOKEN https://x",
            "curl -u alice https://x",
            "mysql -p app",
            "SKIP the ACCOUNT, the key-value store, us-east-1",
            "use --password-file pw.txt and --tokens 4",
            "read the api.telegram.org/bot docs",
            "released 1.2.3. Next eyJ is a prefix",
            "secret = compute_secret_value(x)",
            "token = self.tokens_remaining",
            "let password = read_password()?;",
            "git commit -m 'x' && git push -u origin main",
        ] {
            assert_eq!(r(s), s, "{s}");
        }
    }
}
