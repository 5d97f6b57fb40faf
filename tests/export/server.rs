//! A tiny HTTP/1.1 server on 127.0.0.1 for the export tests: keep-alive, `Content-Length`
//! bodies, every request recorded; its answer is switchable at run time (200, any status, a
//! redirect, or never answering), and it can be stopped and started again on the same port (an endpoint
//! that is down refuses connections).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `200` with `{}`.
    Ok,
    /// This status, with a short body.
    Status(u16),
    /// Read the request, never answer (until the mode changes or the server stops).
    Hang,
    /// This redirect status, with `Location: /moved`.
    Redirect(u16),
    /// This status with `Retry-After: <seconds>`.
    RetryAfter(u16, u64),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

struct Shared {
    mode: Mutex<Mode>,
    /// Every request, answered or not.
    requests: Mutex<Vec<Request>>,
    /// How many answers were 2xx.
    answered_ok: AtomicUsize,
    connections: AtomicUsize,
    in_flight: AtomicUsize,
    stop: AtomicBool,
    /// Open connections, shut down when the server stops.
    open: Mutex<Vec<TcpStream>>,
}

pub struct Server {
    pub port: u16,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// A server answering `mode`, on a free port.
    pub fn start(mode: Mode) -> Server {
        Server::start_on(0, mode)
    }

    /// A port nothing listens on (yet): an endpoint that is down.
    pub fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    pub fn start_on(port: u16, mode: Mode) -> Server {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the test server");
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            mode: Mutex::new(mode),
            requests: Mutex::new(Vec::new()),
            answered_ok: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            open: Mutex::new(Vec::new()),
        });
        let s = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            while !s.stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        s.connections.fetch_add(1, Ordering::SeqCst);
                        if let Ok(c) = stream.try_clone() {
                            s.open.lock().unwrap().push(c);
                        }
                        let s = Arc::clone(&s);
                        std::thread::spawn(move || serve(stream, &s));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Server {
            port,
            shared,
            thread: Some(thread),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
    }

    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    pub fn request_count(&self) -> usize {
        self.shared.requests.lock().unwrap().len()
    }

    pub fn answered_ok(&self) -> usize {
        self.shared.answered_ok.load(Ordering::SeqCst)
    }

    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    /// Stops listening (later connections are refused) and ends open connections.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        for c in self.shared.open.lock().unwrap().drain(..) {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Waits (polling, generous `limit`) until `cond` holds; panics with `what` otherwise.
    #[track_caller]
    pub fn wait_for(&self, limit: Duration, what: &str, cond: impl Fn(&Server) -> bool) {
        let start = Instant::now();
        while !cond(self) {
            assert!(
                start.elapsed() < limit,
                "timed out waiting for {what}; {} requests so far",
                self.request_count()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serve(stream: TcpStream, s: &Shared) {
    let mut w = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut r = BufReader::new(stream);
    loop {
        let req = match read_request(&mut r, s) {
            Some(req) => req,
            None => return,
        };
        s.in_flight.fetch_add(1, Ordering::SeqCst);
        s.requests.lock().unwrap().push(req);
        let mode = loop {
            let m = *s.mode.lock().unwrap();
            if m != Mode::Hang || s.stop.load(Ordering::SeqCst) {
                break m;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        s.in_flight.fetch_sub(1, Ordering::SeqCst);
        if s.stop.load(Ordering::SeqCst) {
            return;
        }
        let (status, body) = match mode {
            Mode::Ok | Mode::Hang => (200, "{}".to_string()),
            Mode::Status(c) | Mode::Redirect(c) | Mode::RetryAfter(c, _) => (
                c,
                format!("{{\"error\":\"status {c} from the test server\"}}"),
            ),
        };
        let location = match mode {
            Mode::Redirect(_) => "Location: /moved\r\n".to_string(),
            Mode::RetryAfter(_, secs) => format!("Retry-After: {secs}\r\n"),
            _ => String::new(),
        };
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{location}Content-Length: {}\r\n\r\n",
            body.len()
        );
        if w.write_all(head.as_bytes())
            .and_then(|()| w.write_all(body.as_bytes()))
            .is_err()
        {
            return;
        }
        if (200..300).contains(&status) {
            s.answered_ok.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Reads one request; `None` at the end of the connection or when the server stops.
fn read_request(r: &mut BufReader<TcpStream>, s: &Shared) -> Option<Request> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 || s.stop.load(Ordering::SeqCst) {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let len: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}
