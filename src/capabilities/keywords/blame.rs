//! Which sanitiser rule blanked which bytes of a prompt, so `omc-hooks detect` can name the rule
//! that hid a match.
//!
//! Most prompts blank a few ranges, kept as a sorted list of disjoint spans: a per-byte mask
//! would be a second copy of a megabyte prompt. A prompt that blanks very many small ranges
//! switches to the per-byte mask, so memory stays bounded by the prompt's size either way.
//! Either way, a byte blamed on several rules keeps the first one applied.

/// A blanked range and the rule (its position in the sanitiser's list) that blanked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    rule: u8,
}

/// The finished record.
#[derive(Debug, Clone)]
pub(super) struct Blame(Record);

#[derive(Debug, Clone)]
enum Record {
    /// Sorted and disjoint.
    Spans(Vec<Span>),
    /// Per byte: 0 = kept, otherwise the rule + 1.
    Bytes(Vec<u8>),
}

impl Blame {
    /// The rule that blanked the first blanked byte of `start..end`, if any byte is blanked.
    pub(super) fn first(&self, start: usize, end: usize) -> Option<u8> {
        match &self.0 {
            Record::Bytes(mask) => mask
                .get(start..end.min(mask.len()))?
                .iter()
                .find(|r| **r != 0)
                .map(|r| r - 1),
            Record::Spans(spans) => {
                let k = spans.partition_point(|s| s.end <= start);
                spans.get(k).filter(|s| s.start < end).map(|s| s.rule)
            }
        }
    }

    /// Whether it switched to the per-byte mask.
    #[cfg(test)]
    pub(super) fn is_per_byte(&self) -> bool {
        matches!(self.0, Record::Bytes(_))
    }
}

/// The record being made, in the order ranges are blanked.
pub(super) struct Recorder {
    len: usize,
    spans: Vec<Span>,
    mask: Option<Vec<u8>>,
}

impl Recorder {
    /// For a prompt of `len` bytes.
    pub(super) fn new(len: usize) -> Recorder {
        Recorder {
            len,
            spans: Vec::new(),
            mask: None,
        }
    }

    /// `start..end` (non-empty, within the prompt) was blanked by `rule`.
    pub(super) fn record(&mut self, start: usize, end: usize, rule: u8) {
        match &mut self.mask {
            Some(mask) => mark(mask, start, end, rule),
            None => {
                self.spans.push(Span { start, end, rule });
                // more spans than half the prompt's bytes' worth: the mask is smaller
                if self.spans.len() * std::mem::size_of::<Span>() > self.len / 2 + 4096 {
                    let mut mask = vec![0; self.len];
                    for s in self.spans.drain(..) {
                        mark(&mut mask, s.start, s.end, s.rule);
                    }
                    self.mask = Some(mask);
                }
            }
        }
    }

    pub(super) fn finish(self) -> Blame {
        Blame(match self.mask {
            Some(mask) => Record::Bytes(mask),
            None => Record::Spans(disjoint(self.spans)),
        })
    }
}

fn mark(mask: &mut [u8], start: usize, end: usize, rule: u8) {
    for m in &mut mask[start..end] {
        if *m == 0 {
            *m = rule + 1;
        }
    }
}

/// Overlapping spans, in the order they were applied, as sorted disjoint spans where each byte
/// keeps the first rule applied to it. A sweep over the starts with a heap of open spans (by
/// order of application): O(n log n).
fn disjoint(spans: Vec<Span>) -> Vec<Span> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut by_start: Vec<usize> = (0..spans.len()).collect();
    by_start.sort_by_key(|&k| (spans[k].start, k));
    let mut open: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let mut out: Vec<Span> = Vec::new();
    let mut next = 0;
    let mut pos = 0;
    loop {
        while next < by_start.len() && spans[by_start[next]].start <= pos {
            open.push(Reverse(by_start[next]));
            next += 1;
        }
        while open.peek().is_some_and(|Reverse(k)| spans[*k].end <= pos) {
            open.pop();
        }
        let Some(&Reverse(top)) = open.peek() else {
            match by_start.get(next) {
                Some(&k) => {
                    pos = spans[k].start;
                    continue;
                }
                None => break,
            }
        };
        let upto = by_start
            .get(next)
            .map_or(spans[top].end, |&k| spans[top].end.min(spans[k].start));
        let rule = spans[top].rule;
        match out.last_mut() {
            Some(last) if last.end == pos && last.rule == rule => last.end = upto,
            _ => out.push(Span {
                start: pos,
                end: upto,
                rule,
            }),
        }
        pos = upto;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(b: &Blame) -> Vec<(usize, usize, u8)> {
        match &b.0 {
            Record::Spans(v) => v.iter().map(|s| (s.start, s.end, s.rule)).collect(),
            Record::Bytes(_) => panic!("per byte"),
        }
    }

    #[test]
    fn the_first_rule_applied_to_a_byte_is_blamed() {
        // applied in this order: a wide span, then one inside it, then one overlapping its end
        let mut r = Recorder::new(100);
        r.record(10, 20, 2);
        r.record(12, 14, 9);
        r.record(18, 30, 10);
        r.record(40, 41, 11);
        let b = r.finish();
        assert_eq!(spans(&b), vec![(10, 20, 2), (20, 30, 10), (40, 41, 11)]);
        assert_eq!(b.first(0, 10), None);
        assert_eq!(b.first(13, 14), Some(2));
        assert_eq!(b.first(25, 50), Some(10));
        // a later span that starts earlier takes only the bytes nobody had
        let mut r = Recorder::new(100);
        r.record(5, 8, 10);
        r.record(0, 10, 0);
        assert_eq!(spans(&r.finish()), vec![(0, 5, 0), (5, 8, 10), (8, 10, 0)]);
    }

    #[test]
    fn many_spans_switch_to_the_mask_with_the_same_answers() {
        let mut r = Recorder::new(10_000);
        for k in 0..1_000 {
            r.record(k * 10, k * 10 + 3, (k % 5) as u8);
        }
        r.record(0, 10_000, 12);
        let b = r.finish();
        assert!(b.is_per_byte());
        assert_eq!(b.first(0, 3), Some(0));
        assert_eq!(b.first(3, 10), Some(12));
        assert_eq!(b.first(21, 23), Some(2));
    }
}
