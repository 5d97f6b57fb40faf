//! Reading the payload: to EOF, but never more than a size cap, shortening a tool result's
//! huge strings as it goes ([`super::shorten::Streaming`]): a shell call's 8 MiB of output is
//! read through one 64 KiB buffer and never held whole.
//!
//! Claude Code writes the payload and closes stdin at once. A hook started by hand, or by a
//! broken client, may get an endless stream (the size cap stops it) or a stdin that never
//! closes: then the read blocks, and the dispatcher's watchdog ends the process with a no-op
//! at the hook's deadline. Reading on the main thread keeps the common case to one `read` loop
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

/// Reads `reader` to EOF, stopping as soon as more than `max` bytes have arrived; what it
/// gives is the payload with a result's huge strings shortened (`shorten` of it is itself,
/// and for a JSON payload it is `shorten` of the payload as it came).
pub fn read_capped<R: Read>(mut reader: R, max: usize) -> Payload {
    let mut buf = vec![0u8; CHUNK];
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
        let p = read_capped(&b"{\"a\":1}"[..], 100);
        assert!(matches!(p, Payload::Complete(d) if d == b"{\"a\":1}"));
    }

    #[test]
    fn exactly_the_cap_is_fine_one_more_is_not() {
        assert!(matches!(
            read_capped(&[b'x'; 10][..], 10),
            Payload::Complete(_)
        ));
        assert!(matches!(
            read_capped(&[b'x'; 11][..], 10),
            Payload::TooLarge
        ));
    }

    #[test]
    fn endless_input_hits_the_size_cap() {
        assert!(matches!(
            read_capped(Endless, 1024 * 1024),
            Payload::TooLarge
        ));
    }
}
