//! Reading the payload: to EOF, but never more than a size cap, shortening a tool result's
//! huge strings as it goes ([`super::shorten::Streaming`]): a shell call's 8 MiB of output is
//! read through one 64 KiB buffer and never held whole.
//!
//! Claude Code writes the payload and closes stdin at once. A hook started by hand, or by a
//! broken client, may get an endless stream (the size cap stops it) or a stdin that never
//! closes: then the read blocks, and the hook's deadline (`platform::deadline`) ends the
//! process with a no-op. Reading on the main thread keeps the common case to one `read` loop
//! and no extra thread.

use std::io::Read;

use super::shorten::Streaming;

/// Payloads larger than this are not hook payloads we can act on; they get a no-op.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// What the read produced.
#[derive(Debug)]
pub enum Payload {
    /// Everything up to EOF.
    Complete(Vec<u8>),
    /// More than the size cap arrived.
    TooLarge,
    /// Reading failed.
    Failed(String),
}

/// How much is read at a time: what a pipe holds.
const CHUNK: usize = 64 * 1024;

/// The first read's buffer: most payloads are a few KiB, and a buffer of [`CHUNK`] zeroed and
/// touched up front cost more than the rest of the read (16 pages faulted in, 64 KiB
/// cleared); it grows to [`CHUNK`] once a read fills it.
const FIRST: usize = 8 * 1024;

/// Reads `reader` to EOF, stopping as soon as more than `max` bytes have arrived; what it
/// gives is the payload with a result's huge strings shortened (`shorten` of it is itself,
/// and for a JSON payload it is `shorten` of the payload as it came). `large` is called once,
/// when the first read fills its buffer: a payload larger than most is coming (the hook widens
/// its stdin pipe then, `platform::widen_stdin_pipe`).
pub fn read_capped<R: Read>(mut reader: R, max: usize, large: impl FnOnce()) -> Payload {
    let mut large = Some(large);
    let mut buf = vec![0u8; FIRST];
    let mut stream = Streaming::default();
    let mut total = 0usize;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Payload::Complete(stream.finish()),
            Ok(n) => {
                total += n;
                if total > max {
                    return Payload::TooLarge;
                }
                stream.feed(&buf[..n]);
                if n == buf.len() && buf.len() < CHUNK {
                    buf.resize(CHUNK, 0);
                    if let Some(f) = large.take() {
                        f();
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Payload::Failed(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Endless;
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b'x');
            Ok(buf.len())
        }
    }

    #[test]
    fn reads_to_eof() {
        let p = read_capped(&b"{\"a\":1}"[..], 100, || {});
        assert!(matches!(p, Payload::Complete(d) if d == b"{\"a\":1}"));
    }

    #[test]
    fn exactly_the_cap_is_fine_one_more_is_not() {
        assert!(matches!(
            read_capped(&[b'x'; 10][..], 10, || {}),
            Payload::Complete(_)
        ));
        assert!(matches!(
            read_capped(&[b'x'; 11][..], 10, || {}),
            Payload::TooLarge
        ));
    }

    /// A reader that gives at most `n` bytes a read, as a pipe does.
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A shell call's 8 MiB of output comes out shortened as `shorten` makes it of the whole;
    /// the size cap counts the bytes read, not what is kept of them.
    #[test]
    fn a_huge_result_is_shortened_as_it_is_read_and_the_cap_counts_what_was_read() {
        let text = "test case ... ok\n".repeat((8 << 20) / 17);
        let raw = serde_json::json!({"tool_response": {"stdout": text}, "session_id": "s"})
            .to_string()
            .into_bytes();
        let want = crate::protocol::shorten::shorten(&raw).into_owned();
        assert!(want.len() < 300 * 1024, "{}", want.len());
        for step in [1000, 65_536, raw.len()] {
            let got = read_capped(Trickle(&raw, step), MAX_PAYLOAD_BYTES, || {});
            assert!(matches!(got, Payload::Complete(d) if d == want), "{step}");
        }
        assert!(matches!(
            read_capped(Trickle(&raw, 65_536), raw.len() - 1, || {}),
            Payload::TooLarge
        ));
    }

    #[test]
    fn endless_input_hits_the_size_cap() {
        assert!(matches!(
            read_capped(Endless, 1024 * 1024, || {}),
            Payload::TooLarge
        ));
    }
}
