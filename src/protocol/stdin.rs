//! Reading the payload: to EOF, but never more than a size cap and never longer than a time cap.
//!
//! Claude Code writes the payload and closes stdin at once. A hook started by hand, or by a
//! broken client, may get a stdin that never closes or an endless stream; either way the hook
//! must answer promptly. The read runs on its own thread so the caller can stop waiting; the
//! thread is abandoned (and dies with the process) if it is still blocked.

use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

/// Payloads larger than this are not hook payloads we can act on; they get a no-op.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// What the read produced.
#[derive(Debug)]
pub enum Payload {
    /// Everything up to EOF.
    Complete(Vec<u8>),
    /// The time cap passed before EOF; these are the bytes read so far.
    TimedOut(Vec<u8>),
    /// More than the size cap arrived.
    TooLarge,
    /// Reading failed.
    Failed(String),
}

/// Reads `reader` on a helper thread, waiting at most `wait`.
pub fn read_payload<R: Read + Send + 'static>(reader: R, max: usize, wait: Duration) -> Payload {
    let (tx, rx) = mpsc::channel::<Chunk>();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || pump(reader, max, tx))
        .map_or_else(
            |e| Payload::Failed(e.to_string()),
            |_| collect(rx, max, wait),
        )
}

enum Chunk {
    Data(Vec<u8>),
    Eof,
    Error(String),
}

fn pump<R: Read>(mut reader: R, max: usize, tx: mpsc::Sender<Chunk>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => {
                let _ = tx.send(Chunk::Eof);
                return;
            }
            Ok(n) => {
                total += n;
                if tx.send(Chunk::Data(buf[..n].to_vec())).is_err() || total > max {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = tx.send(Chunk::Error(e.to_string()));
                return;
            }
        }
    }
}

fn collect(rx: mpsc::Receiver<Chunk>, max: usize, wait: Duration) -> Payload {
    let deadline = std::time::Instant::now() + wait;
    let mut data = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(Chunk::Data(bytes)) => {
                data.extend_from_slice(&bytes);
                if data.len() > max {
                    return Payload::TooLarge;
                }
            }
            Ok(Chunk::Eof) => return Payload::Complete(data),
            Ok(Chunk::Error(e)) => return Payload::Failed(e),
            Err(mpsc::RecvTimeoutError::Timeout) => return Payload::TimedOut(data),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Payload::Complete(data),
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

    struct Stuck;
    impl Read for Stuck {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(0)
        }
    }

    #[test]
    fn reads_to_eof() {
        let p = read_payload(&b"{\"a\":1}"[..], 100, Duration::from_secs(5));
        assert!(matches!(p, Payload::Complete(d) if d == b"{\"a\":1}"));
    }

    #[test]
    fn endless_input_hits_the_size_cap() {
        let p = read_payload(Endless, 1024 * 1024, Duration::from_secs(5));
        assert!(matches!(p, Payload::TooLarge));
    }

    #[test]
    fn stuck_input_hits_the_time_cap() {
        let p = read_payload(Stuck, 1024, Duration::from_millis(50));
        assert!(matches!(p, Payload::TimedOut(d) if d.is_empty()));
    }
}
