//! Where each value of a JSON text starts and ends: the positions [`super::edit::Edit`] needs
//! to insert or remove an entry without touching a byte around it.
//!
//! The text is first checked by serde_json (so the error messages are serde_json's and every
//! text accepted here is JSON); this walk then only records spans, trusting the syntax.

/// One value: its byte span in the text and, for containers, its children.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) start: usize,
    /// One past the last byte of the value.
    pub(super) end: usize,
    pub(super) kind: Kind,
}

#[derive(Debug, Clone)]
pub(super) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

/// One `"key": value` of an object.
#[derive(Debug, Clone)]
pub(super) struct Member {
    pub(super) key: String,
    pub(super) key_start: usize,
    /// One past the key's closing quote.
    pub(super) key_end: usize,
    pub(super) value: Node,
}

impl Node {
    /// The start of the `i`-th child (its key, for an object member).
    pub(super) fn child_start(&self, i: usize) -> Option<usize> {
        match &self.kind {
            Kind::Object(m) => m.get(i).map(|m| m.key_start),
            Kind::Array(a) => a.get(i).map(|n| n.start),
            Kind::Scalar => None,
        }
    }

    /// The end of the `i`-th child's value.
    pub(super) fn child_end(&self, i: usize) -> Option<usize> {
        match &self.kind {
            Kind::Object(m) => m.get(i).map(|m| m.value.end),
            Kind::Array(a) => a.get(i).map(|n| n.end),
            Kind::Scalar => None,
        }
    }

    pub(super) fn len(&self) -> usize {
        match &self.kind {
            Kind::Object(m) => m.len(),
            Kind::Array(a) => a.len(),
            Kind::Scalar => 0,
        }
    }

    /// The index of the member named `key` (the last one, as JSON parsers keep the last).
    pub(super) fn member_index(&self, key: &str) -> Option<usize> {
        match &self.kind {
            Kind::Object(m) => m.iter().rposition(|m| m.key == key),
            _ => None,
        }
    }
}

/// Why a text is not a JSON document [`parse`] accepts.
pub(super) fn check(text: &str) -> Result<(), String> {
    if let Some((line, col)) = comment_at(text) {
        return Err(format!(
            "not valid JSON: a comment at line {line} column {col} (Claude Code's settings are \
             plain JSON, which has no comments)"
        ));
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(|_| ())
        .map_err(|e| format!("not valid JSON ({e})"))
}

/// The line and column (1-based) of a `//` or `/*` outside a string, if any.
fn comment_at(text: &str) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') | (false, b'"') => in_str = !in_str,
            (false, b'/') if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                let before = &text[..i];
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
                return Some((line, col));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The span tree of a text that [`check`] accepted.
pub(super) fn parse(text: &str) -> Node {
    let mut p = Walker {
        b: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    p.value()
}

struct Walker<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Walker<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Node {
        let start = self.i;
        let kind = match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        Some(b',') => {
                            self.i += 1;
                            continue;
                        }
                        _ => {}
                    }
                    let key_start = self.i;
                    self.string();
                    let key_end = self.i;
                    let key = serde_json::from_str::<String>(&self.text[key_start..key_end])
                        .unwrap_or_default();
                    self.ws();
                    self.i += 1; // ':'
                    self.ws();
                    let value = self.value();
                    members.push(Member {
                        key,
                        key_start,
                        key_end,
                        value,
                    });
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b']') => {
                            self.i += 1;
                            break;
                        }
                        Some(b',') => {
                            self.i += 1;
                            continue;
                        }
                        None => break,
                        _ => items.push(self.value()),
                    }
                }
                Kind::Array(items)
            }
            Some(b'"') => {
                self.string();
                Kind::Scalar
            }
            _ => {
                while self.b.get(self.i).is_some_and(|c| {
                    !matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.i += 1;
                }
                Kind::Scalar
            }
        };
        Node {
            start,
            end: self.i,
            kind,
        }
    }

    /// Skips a string starting at its opening quote.
    fn string(&mut self) {
        self.i += 1;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => return,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_exactly_each_value() {
        let t = " {\"a\" : [1, {\"b\\\"\":true}] ,\"c\":\"x\\\\\"}\n";
        check(t).unwrap();
        let root = parse(t);
        assert_eq!(&t[root.start..root.end], t.trim());
        let Kind::Object(m) = &root.kind else {
            panic!()
        };
        assert_eq!(m[0].key, "a");
        assert_eq!(
            &t[m[0].value.start..m[0].value.end],
            "[1, {\"b\\\"\":true}]"
        );
        let Kind::Array(items) = &m[0].value.kind else {
            panic!()
        };
        let Kind::Object(inner) = &items[1].kind else {
            panic!()
        };
        assert_eq!(inner[0].key, "b\"");
        assert_eq!(&t[m[1].key_start..m[1].key_end], "\"c\"");
        assert_eq!(&t[m[1].value.start..m[1].value.end], "\"x\\\\\"");
        assert_eq!(root.member_index("c"), Some(1));
    }

    #[test]
    fn comments_and_trailing_commas_are_refused() {
        let e = check("{\n  // mine\n  \"a\": 1\n}").unwrap_err();
        assert!(e.contains("comment at line 2 column 3"), "{e}");
        assert!(check("{\"a\": 1 /* x */}").unwrap_err().contains("comment"));
        assert!(check("{\"a\": \"http://x\"}").is_ok());
        assert!(check("{\"a\": 1,}").unwrap_err().contains("not valid JSON"));
        assert!(check("").is_err());
    }
}
