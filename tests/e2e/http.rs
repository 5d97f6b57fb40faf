//! The HTTP/1.1 plumbing shared by every scripted model server (Anthropic Messages in
//! `server.rs`, and the Responses / Gemini / chat-completions wires in `model.rs`): std only,
//! keep-alive, `Content-Length` or chunked request bodies, one complete response per request
//! (SSE bodies are sent whole; every client tried here reads them fine that way).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as received. Header names are lower-cased.
pub struct Req {
    pub method: String,
    /// Path including any query string.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Req {
    /// The path without its query string.
    pub fn bare_path(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One complete response.
pub struct Resp {
    pub status: &'static str,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(status: &'static str, v: &serde_json::Value) -> Resp {
        Resp {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }
    pub fn sse(body: String) -> Resp {
        Resp {
            status: "200 OK",
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }
}

pub type Handler = Arc<dyn Fn(&Req) -> Resp + Send + Sync>;

/// A listener on 127.0.0.1 answering every request with `handler`. Dropping it stops the
/// accept loop and, within half a second, idle keep-alive connections.
pub struct HttpServer {
    port: u16,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl HttpServer {
    pub fn start(handler: Handler) -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let sp = stop.clone();
        let accept = std::thread::spawn(move || {
            while !sp.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (h, sp) = (handler.clone(), sp.clone());
                        std::thread::spawn(move || {
                            let _ = serve_conn(stream, h, sp);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        HttpServer {
            port,
            stop,
            accept: Some(accept),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn read_request(r: &mut BufReader<TcpStream>) -> std::io::Result<Option<Req>> {
    let mut line = String::new();
    // skip stray blank lines between keep-alive requests
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if !line.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 {
            return Ok(None);
        }
        let h = h.trim_end_matches(['\r', '\n']);
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if get("transfer-encoding")
        .map(|v| v.to_ascii_lowercase().contains("chunked"))
        .unwrap_or(false)
    {
        loop {
            let mut sz = String::new();
            r.read_line(&mut sz)?;
            let sz = sz.trim();
            let sz = sz.split(';').next().unwrap_or("0");
            let n = usize::from_str_radix(sz, 16).unwrap_or(0);
            if n == 0 {
                // trailers until blank line
                loop {
                    let mut t = String::new();
                    if r.read_line(&mut t)? == 0 || t.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let mut chunk = vec![0u8; n];
            r.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            let mut crlf = String::new();
            r.read_line(&mut crlf)?;
        }
    } else if let Some(n) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0u8; n];
        r.read_exact(&mut body)?;
    }
    Ok(Some(Req {
        method,
        path,
        headers,
        body,
    }))
}

fn serve_conn(stream: TcpStream, handler: Handler, stop: Arc<AtomicBool>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    let mut w = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    loop {
        // wait for the next request, polling the stop flag
        loop {
            match r.fill_buf() {
                Ok([]) => return Ok(()),
                Ok(_) => break,
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                }
                Err(e) => return Err(e),
            }
        }
        r.get_ref()
            .set_read_timeout(Some(Duration::from_secs(30)))?;
        let req = match read_request(&mut r)? {
            Some(q) => q,
            None => return Ok(()),
        };
        r.get_ref()
            .set_read_timeout(Some(Duration::from_millis(500)))?;
        let close = req
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let resp = handler(&req);
        let head = format!(
            "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nrequest-id: req_e2e\r\nConnection: {}\r\n\r\n",
            resp.status,
            resp.content_type,
            resp.body.len(),
            if close { "close" } else { "keep-alive" }
        );
        w.write_all(head.as_bytes())?;
        w.write_all(&resp.body)?;
        w.flush()?;
        if close {
            let _ = w.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
}
