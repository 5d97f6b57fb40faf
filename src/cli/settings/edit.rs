//! Byte-preserving edits of a JSON file: insert, replace or remove one entry and leave every
//! other byte — indentation, compact arrays, key order, CRLF line ends, escapes — as it was.
//!
//! Why not parse, change and re-serialise: that re-indents what the user wrote (and what we did
//! not touch), so an install followed by an uninstall would not give the file back. Here each
//! operation is a splice of the text at the spans of [`super::tree`], and the inserted text
//! copies the layout of its neighbours. The conventions are chosen so that removing what was
//! appended restores the original exactly:
//!
//! * appending to a non-empty container writes `,` + the whitespace that precedes the current
//!   last entry + the new entry, right after the last entry;
//! * removing an entry that is not the first deletes from the end of the entry before it to
//!   its own end; removing the first of several deletes up to the start of the next one;
//!   removing the only entry leaves `{}` / `[]`.
//!
//! Any JSON file can be edited this way (Claude Code's settings, other agents' hook files).

use super::tree::{self, Kind, Node};
use serde_json::Value;

/// One step of a path into a document: an object member or an array element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// A JSON document held as text, edited in place.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    text: String,
    root: Node,
}

/// Why an edit could not be made; the document is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EditError {
    /// The path does not lead to an existing value (or its parent for an insertion).
    NotFound(String),
    /// A value on the path has the wrong type (for example an array where an object is needed).
    WrongType(String),
    /// Raw text given to [`Edit::set_raw`] is not one JSON value.
    BadRaw(String),
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::NotFound(p) => write!(f, "{p} does not exist"),
            EditError::WrongType(p) => write!(f, "{p} has the wrong type"),
            EditError::BadRaw(e) => write!(f, "not one JSON value: {e}"),
        }
    }
}

/// Renders a path for messages, as a JSON pointer.
pub(crate) fn pointer(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        s.push('/');
        match seg {
            Seg::Key(k) => s.push_str(&k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i) => s.push_str(&i.to_string()),
        }
    }
    if s.is_empty() { "/".into() } else { s }
}

impl Edit {
    /// Parses `text`. Refuses anything that is not strict JSON (comments and trailing commas
    /// included), with a message saying where.
    pub(crate) fn parse(text: &str) -> Result<Edit, String> {
        tree::check(text)?;
        Ok(Edit {
            root: tree::parse(text),
            text: text.to_string(),
        })
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The whole document as a value.
    pub(crate) fn value(&self) -> Value {
        serde_json::from_str(&self.text).expect("the text is always valid JSON")
    }

    fn node(&self, path: &[Seg]) -> Option<&Node> {
        let mut n = &self.root;
        for seg in path {
            n = match (seg, &n.kind) {
                (Seg::Key(k), Kind::Object(m)) => &m[n.member_index(k)?].value,
                (Seg::Index(i), Kind::Array(a)) => a.get(*i)?,
                _ => return None,
            };
        }
        Some(n)
    }

    /// The exact text of the value at `path`.
    pub(crate) fn raw(&self, path: &[Seg]) -> Option<&str> {
        self.node(path).map(|n| &self.text[n.start..n.end])
    }

    /// The value at `path`.
    pub(crate) fn get(&self, path: &[Seg]) -> Option<Value> {
        self.raw(path).and_then(|r| serde_json::from_str(r).ok())
    }

    /// The number of members or elements of the container at `path`.
    pub(crate) fn len(&self, path: &[Seg]) -> Option<usize> {
        self.node(path).map(Node::len)
    }

    fn splice(&mut self, start: usize, end: usize, with: &str) {
        self.text.replace_range(start..end, with);
        self.root = tree::parse(&self.text);
        debug_assert!(tree::check(&self.text).is_ok(), "{}", self.text);
    }

    /// Sets the value at `path`: replaces it if it exists, else appends the member to its
    /// parent object (which must exist). The new text follows the layout around it.
    pub(crate) fn set(&mut self, path: &[Seg], value: &Value) -> Result<(), EditError> {
        if let Some(n) = self.node(path) {
            let (start, end) = (n.start, n.end);
            let was_scalar = matches!(n.kind, Kind::Scalar);
            let multiline = self.text[start..end].contains('\n')
                || (was_scalar && is_container(value) && self.pretty_default());
            let text = if multiline {
                let base = line_indent(&self.text, start).to_string();
                self.render_pretty(value, &base)
            } else {
                self.render_compact(value, None, None)
            };
            self.splice(start, end, &text);
            return Ok(());
        }
        let Some((Seg::Key(key), parent)) = path.split_last() else {
            return Err(EditError::NotFound(pointer(path)));
        };
        let key_json = serde_json::to_string(key).expect("a string serialises");
        self.append(parent, Some(&key_json), value)
    }

    /// Replaces the value at `path` (or adds the member, as [`Edit::set`]) with `raw`, kept as
    /// written: for restoring a value exactly as it was.
    pub(crate) fn set_raw(&mut self, path: &[Seg], raw: &str) -> Result<(), EditError> {
        tree::check(raw).map_err(EditError::BadRaw)?;
        let raw = raw.trim_matches([' ', '\t', '\n', '\r']);
        if let Some(n) = self.node(path) {
            let (start, end) = (n.start, n.end);
            self.splice(start, end, raw);
            return Ok(());
        }
        let Some((Seg::Key(key), parent)) = path.split_last() else {
            return Err(EditError::NotFound(pointer(path)));
        };
        let key_json = serde_json::to_string(key).expect("a string serialises");
        self.append_text(parent, Some(&key_json), |_, _| raw.to_string())
    }

    /// Appends `value` to the array at `path`; returns its index.
    pub(crate) fn push(&mut self, path: &[Seg], value: &Value) -> Result<usize, EditError> {
        self.append(path, None, value)?;
        Ok(self.len(path).expect("just appended") - 1)
    }

    fn append(&mut self, path: &[Seg], key: Option<&str>, value: &Value) -> Result<(), EditError> {
        self.append_text(path, key, |edit, ctx| match ctx {
            Ctx::Pretty(base) => edit.render_pretty(value, base),
            Ctx::Compact(sibling, sep) => edit.render_compact(value, sibling, sep),
        })
    }

    /// Appends an entry whose text `render` makes for its context, to the container at
    /// `path` (an object when `key` is given, else an array).
    fn append_text(
        &mut self,
        path: &[Seg],
        key: Option<&str>,
        render: impl FnOnce(&Edit, Ctx) -> String,
    ) -> Result<(), EditError> {
        let node = self
            .node(path)
            .ok_or_else(|| EditError::NotFound(pointer(path)))?;
        match (&node.kind, key) {
            (Kind::Object(_), Some(_)) | (Kind::Array(_), None) => {}
            _ => return Err(EditError::WrongType(pointer(path))),
        }
        let n = node.len();
        let colon = self.colon_for(node);
        if n == 0 {
            let (open, close) = (node.start, node.end);
            let pretty = self.pretty_default();
            let text = if pretty {
                let outer = line_indent(&self.text, open).to_string();
                let inner = format!("{outer}{}", self.unit());
                let nl = self.newline();
                let entry = render(self, Ctx::Pretty(&inner));
                match key {
                    Some(k) => format!("{nl}{inner}{k}{colon}{entry}{nl}{outer}"),
                    None => format!("{nl}{inner}{entry}{nl}{outer}"),
                }
            } else {
                let entry = render(self, Ctx::Compact(None, None));
                match key {
                    Some(k) => format!("{k}{colon}{entry}"),
                    None => entry,
                }
            };
            self.splice(open + 1, close - 1, &text);
            return Ok(());
        }
        let last_start = node.child_start(n - 1).expect("n > 0");
        let last_end = node.child_end(n - 1).expect("n > 0");
        let before = match n {
            1 => node.start + 1,
            _ => after_comma(&self.text, node.child_end(n - 2).expect("n > 1")),
        };
        let sep = self.text[before..last_start].to_string();
        let sibling = match &node.kind {
            Kind::Object(m) => Some(m[n - 1].value.clone()),
            Kind::Array(a) => Some(a[n - 1].clone()),
            Kind::Scalar => None,
        };
        let entry = match sep.rfind('\n') {
            Some(p) => render(self, Ctx::Pretty(&sep[p + 1..])),
            None => render(self, Ctx::Compact(sibling.as_ref(), Some(&sep))),
        };
        let text = match key {
            Some(k) => format!(",{sep}{k}{colon}{entry}"),
            None => format!(",{sep}{entry}"),
        };
        self.splice(last_end, last_end, &text);
        Ok(())
    }

    /// Removes the member or element at `path`, with the separator that belongs to it.
    pub(crate) fn remove(&mut self, path: &[Seg]) -> Result<(), EditError> {
        let Some((last, parent)) = path.split_last() else {
            return Err(EditError::NotFound("/".into()));
        };
        let node = self
            .node(parent)
            .ok_or_else(|| EditError::NotFound(pointer(path)))?;
        let i = match (last, &node.kind) {
            (Seg::Key(k), Kind::Object(_)) => node.member_index(k),
            (Seg::Index(i), Kind::Array(a)) => (*i < a.len()).then_some(*i),
            _ => None,
        }
        .ok_or_else(|| EditError::NotFound(pointer(path)))?;
        let n = node.len();
        let (start, end) = if n == 1 {
            (node.start + 1, node.end - 1)
        } else if i == 0 {
            (
                node.child_start(0).expect("n > 1"),
                node.child_start(1).expect("n > 1"),
            )
        } else {
            (
                node.child_end(i - 1).expect("i > 0"),
                node.child_end(i).expect("i < n"),
            )
        };
        self.splice(start, end, "");
        Ok(())
    }

    // ------------------------------------------------------------------ layout

    /// `\r\n` when the file uses it, else `\n`.
    fn newline(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The indentation unit: the leading whitespace of the first indented line (spaces or
    /// tabs), else two spaces.
    fn unit(&self) -> String {
        self.text
            .lines()
            .skip(1)
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|ws| !ws.is_empty())
            .filter(|ws| ws.bytes().all(|b| b == b' ') || ws.bytes().all(|b| b == b'\t'))
            .unwrap_or("  ")
            .to_string()
    }

    /// Whether an entry added to an empty container goes on lines of its own: yes unless the
    /// document is a one-line, non-empty value.
    fn pretty_default(&self) -> bool {
        let root = &self.text[self.root.start..self.root.end];
        root.contains('\n') || self.root.len() == 0
    }

    /// The text between a key and its value, as the object (else the document) writes it.
    fn colon_for(&self, node: &Node) -> String {
        let from = |m: &tree::Member| self.text[m.key_end..m.value.start].to_string();
        if let Kind::Object(m) = &node.kind
            && let Some(last) = m.last()
        {
            return from(last);
        }
        self.first_member(&self.root)
            .map(|m| from(&m))
            .filter(|c| !c.contains('\n'))
            .unwrap_or_else(|| ": ".into())
    }

    fn first_member(&self, n: &Node) -> Option<tree::Member> {
        match &n.kind {
            Kind::Object(m) => m.first().cloned(),
            Kind::Array(a) => a.iter().find_map(|c| self.first_member(c)),
            Kind::Scalar => None,
        }
    }

    fn render_pretty(&self, v: &Value, base: &str) -> String {
        let (nl, unit) = (self.newline(), self.unit());
        let colon = self
            .first_member(&self.root)
            .map(|m| self.text[m.key_end..m.value.start].to_string())
            .filter(|c| !c.contains('\n'))
            .unwrap_or_else(|| ": ".into());
        let mut out = String::new();
        pretty(v, base, &unit, nl, &colon, &mut out);
        out
    }

    /// One line, with the spacing of `sibling` (a neighbouring value) when it shows one, and
    /// `sep` (the whitespace after the container's commas) for its commas.
    fn render_compact(&self, v: &Value, sibling: Option<&Node>, sep: Option<&str>) -> String {
        let sample = sibling
            .filter(|s| s.len() > 0)
            .or(Some(&self.root).filter(|r| r.len() > 0));
        let (mut colon, mut comma) = (":".to_string(), ",".to_string());
        if let Some(s) = sample {
            if let Some(m) = self.first_member(s) {
                let c = &self.text[m.key_end..m.value.start];
                if !c.contains('\n') {
                    colon = c.to_string();
                }
            }
            if s.len() > 1 {
                let sep = &self.text
                    [s.child_end(0).expect("len > 1")..s.child_start(1).expect("len > 1")];
                if !sep.contains('\n') {
                    comma = sep.to_string();
                }
            }
        }
        if let Some(sep) = sep {
            comma = format!(",{sep}");
        }
        let mut out = String::new();
        compact(v, &colon, &comma, &mut out);
        out
    }
}

/// Where an appended entry goes: on its own line at this indentation, or inline after a
/// sibling whose spacing it copies (with the whitespace that follows the container's commas).
enum Ctx<'a> {
    Pretty(&'a str),
    Compact(Option<&'a Node>, Option<&'a str>),
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty())
}

/// The position just after the comma that follows the value ending at `end`.
fn after_comma(text: &str, end: usize) -> usize {
    text[end..].find(',').map_or(end, |p| end + p + 1)
}

/// The leading whitespace of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn scalar(v: &Value) -> String {
    serde_json::to_string(v).expect("a Value always serialises")
}

fn pretty(v: &Value, base: &str, unit: &str, nl: &str, colon: &str, out: &mut String) {
    let inner = format!("{base}{unit}");
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { "," });
                out.push_str(nl);
                out.push_str(&inner);
                out.push_str(&scalar(&Value::String(k.clone())));
                out.push_str(colon);
                pretty(v, &inner, unit, nl, colon, out);
            }
            out.push_str(nl);
            out.push_str(base);
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                out.push_str(if i == 0 { "" } else { "," });
                out.push_str(nl);
                out.push_str(&inner);
                pretty(v, &inner, unit, nl, colon, out);
            }
            out.push_str(nl);
            out.push_str(base);
            out.push(']');
        }
        _ => out.push_str(&scalar(v)),
    }
}

fn compact(v: &Value, colon: &str, comma: &str, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push_str(&scalar(&Value::String(k.clone())));
                out.push_str(colon);
                compact(v, colon, comma, out);
            }
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                compact(v, colon, comma, out);
            }
            out.push(']');
        }
        _ => out.push_str(&scalar(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(non_snake_case)]
    fn K(k: &str) -> Seg<'_> {
        Seg::Key(k)
    }

    /// Appends then removes, checking the file comes back byte for byte.
    #[track_caller]
    fn round_trip(original: &str, path: &[Seg], key: &str, v: Value, expect: &str) {
        let mut e = Edit::parse(original).unwrap();
        let mut full = path.to_vec();
        full.push(Seg::Key(key));
        e.set(&full, &v).unwrap();
        assert_eq!(e.text(), expect);
        assert_eq!(e.get(&full), Some(v));
        e.remove(&full).unwrap();
        assert_eq!(e.text(), original);
    }

    #[test]
    fn members_are_added_in_the_layout_of_their_neighbours() {
        round_trip(
            "{\n  \"a\": 1\n}\n",
            &[],
            "b",
            json!({"c": [1]}),
            "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      1\n    ]\n  }\n}\n",
        );
        round_trip(
            "{\r\n\t\"a\": 1\r\n}",
            &[],
            "b",
            json!([true]),
            "{\r\n\t\"a\": 1,\r\n\t\"b\": [\r\n\t\ttrue\r\n\t]\r\n}",
        );
        round_trip(
            "{\"a\":1,\"x\":{\"y\":2}}",
            &[K("x")],
            "z",
            json!({"q": [1, 2]}),
            "{\"a\":1,\"x\":{\"y\":2,\"z\":{\"q\":[1,2]}}}",
        );
        round_trip(
            "{\"a\": 1, \"b\": 2}",
            &[],
            "c",
            json!({"d": 3, "e": 4}),
            "{\"a\": 1, \"b\": 2, \"c\": {\"d\": 3, \"e\": 4}}",
        );
        round_trip(
            "{\n    \"a\" : 1 ,\n    \"b\": {}\n}",
            &[K("b")],
            "k",
            json!("v"),
            "{\n    \"a\" : 1 ,\n    \"b\": {\n        \"k\" : \"v\"\n    }\n}",
        );
        round_trip("{}", &[], "k", json!(1), "{\n  \"k\": 1\n}");
    }

    #[test]
    fn elements_are_pushed_and_removed_symmetrically() {
        let original = "{\n  \"l\": [\"a\", \"b\"],\n  \"m\": [\n    {\"x\": 1}\n  ]\n}\n";
        let mut e = Edit::parse(original).unwrap();
        assert_eq!(e.push(&[K("l")], &json!({"k": [1, 2]})).unwrap(), 2);
        assert_eq!(e.push(&[K("m")], &json!({"y": 2})).unwrap(), 1);
        assert_eq!(
            e.text(),
            "{\n  \"l\": [\"a\", \"b\", {\"k\": [1, 2]}],\n  \"m\": [\n    {\"x\": 1},\n    {\n      \"y\": 2\n    }\n  ]\n}\n"
        );
        e.remove(&[K("m"), Seg::Index(1)]).unwrap();
        e.remove(&[K("l"), Seg::Index(2)]).unwrap();
        assert_eq!(e.text(), original);
        // The first of several, then the last one left.
        e.remove(&[K("l"), Seg::Index(0)]).unwrap();
        assert_eq!(e.raw(&[K("l")]), Some("[\"b\"]"));
        e.remove(&[K("l"), Seg::Index(0)]).unwrap();
        assert_eq!(e.raw(&[K("l")]), Some("[]"));
        e.remove(&[K("m")]).unwrap();
        assert_eq!(e.text(), "{\n  \"l\": []\n}\n");
    }

    #[test]
    fn scalars_are_replaced_in_place_and_raw_text_is_restored() {
        let original = "{\"a\": \"x\", \"b\": {\n  \"c\": 1\n}}";
        let mut e = Edit::parse(original).unwrap();
        e.set(&[K("a")], &json!("y")).unwrap();
        assert_eq!(e.text(), "{\"a\": \"y\", \"b\": {\n  \"c\": 1\n}}");
        let before = e.raw(&[K("b")]).unwrap().to_string();
        e.set(&[K("b")], &json!({"d": 2})).unwrap();
        assert_eq!(e.get(&[K("b")]), Some(json!({"d": 2})));
        e.set_raw(&[K("b")], &before).unwrap();
        e.set(&[K("a")], &json!("x")).unwrap();
        assert_eq!(e.text(), original);
        assert!(matches!(
            e.set_raw(&[K("a")], "{oops"),
            Err(EditError::BadRaw(_))
        ));
    }

    #[test]
    fn wrong_paths_change_nothing() {
        let mut e = Edit::parse("{\"a\": [1]}").unwrap();
        assert!(matches!(
            e.set(&[K("x"), K("y")], &json!(1)),
            Err(EditError::NotFound(_))
        ));
        assert!(matches!(
            e.push(&[K("nope")], &json!(1)),
            Err(EditError::NotFound(_))
        ));
        assert!(matches!(
            e.set(&[K("a"), K("k")], &json!(1)),
            Err(EditError::WrongType(_))
        ));
        assert!(e.remove(&[K("a"), Seg::Index(3)]).is_err());
        assert_eq!(e.text(), "{\"a\": [1]}");
        assert_eq!(pointer(&[K("a/b~"), Seg::Index(2)]), "/a~1b~0/2");
    }
}
