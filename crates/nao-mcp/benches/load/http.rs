//! A minimal HTTP/1.1 client for one keep-alive connection to 127.0.0.1: one request at a time,
//! the whole response read (Content-Length, chunked, or to EOF), every size bounded. It speaks
//! just enough HTTP for streamable MCP, so the load test measures the server, not a client
//! stack, and needs no dependency beyond tokio.

use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// The longest status or header line read.
const MAX_LINE: u64 = 16 * 1024;
/// The most header lines read.
const MAX_HEADERS: usize = 100;
/// The largest body read: far above any answer of the test's workload.
const MAX_BODY: usize = 64 << 20;

/// Why a request got no usable HTTP answer.
#[derive(Debug)]
pub(crate) enum HttpError {
    /// Connecting, writing or reading failed.
    Io(std::io::Error),
    /// The peer closed the connection before the first byte of an answer: a keep-alive
    /// connection the server had already closed; the request may be sent again.
    ClosedBeforeAnswer,
    /// The answer does not parse as HTTP/1.1 or breaks a bound.
    Malformed(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Io(error) => write!(f, "I/O error: {error}"),
            HttpError::ClosedBeforeAnswer => f.write_str("connection closed before an answer"),
            HttpError::Malformed(what) => write!(f, "malformed HTTP answer: {what}"),
        }
    }
}

impl From<std::io::Error> for HttpError {
    fn from(error: std::io::Error) -> Self {
        HttpError::Io(error)
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub(crate) struct HttpResponse {
    /// The status code.
    pub(crate) status: u16,
    /// Headers, names lower-cased.
    pub(crate) headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub(crate) body: Vec<u8>,
    /// Whether the connection may carry another request.
    pub(crate) keep_alive: bool,
}

impl HttpResponse {
    /// The first header named `name` (lower-case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// One open connection.
#[derive(Debug)]
pub(crate) struct HttpConnection {
    stream: BufReader<TcpStream>,
    /// Requests answered on it so far.
    pub(crate) answered: u64,
}

impl HttpConnection {
    /// Connects to `addr` with `TCP_NODELAY` (the request goes out in one write anyway).
    pub(crate) async fn connect(addr: SocketAddr) -> Result<Self, HttpError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(HttpConnection {
            stream: BufReader::new(stream),
            answered: 0,
        })
    }

    /// Sends one request (head and body in one write) and reads its whole answer.
    pub(crate) async fn send(
        &mut self,
        method: &str,
        addr: SocketAddr,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<HttpResponse, HttpError> {
        let mut request = format!("{method} /mcp HTTP/1.1\r\nHost: {addr}\r\n");
        for (name, value) in headers {
            request.push_str(name);
            request.push_str(": ");
            request.push_str(value);
            request.push_str("\r\n");
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body);
        self.stream.get_mut().write_all(&bytes).await?;
        let response = self.read_response().await?;
        self.answered += 1;
        Ok(response)
    }

    async fn read_response(&mut self) -> Result<HttpResponse, HttpError> {
        let status_line = match self.read_line().await? {
            Some(line) => line,
            None => return Err(HttpError::ClosedBeforeAnswer),
        };
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| HttpError::Malformed(format!("status line {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let line = self
                .read_line()
                .await?
                .ok_or_else(|| HttpError::Malformed("the headers end early".into()))?;
            if line.is_empty() {
                break;
            }
            if headers.len() == MAX_HEADERS {
                return Err(HttpError::Malformed("too many headers".into()));
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| HttpError::Malformed(format!("header line {line:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.to_ascii_lowercase())
        };
        let mut keep_alive = find("connection").is_none_or(|value| !value.contains("close"));
        let body = if find("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
            self.read_chunked().await?
        } else if let Some(length) = find("content-length") {
            let length: usize = length
                .parse()
                .map_err(|_| HttpError::Malformed(format!("content-length {length:?}")))?;
            if length > MAX_BODY {
                return Err(HttpError::Malformed(format!("a body of {length} bytes")));
            }
            let mut body = vec![0; length];
            self.stream.read_exact(&mut body).await?;
            body
        } else if status == 204 || status == 304 || (100..200).contains(&status) {
            Vec::new()
        } else {
            // Delimited by the end of the connection.
            keep_alive = false;
            let mut body = Vec::new();
            (&mut self.stream)
                .take(MAX_BODY as u64)
                .read_to_end(&mut body)
                .await?;
            body
        };
        Ok(HttpResponse {
            status,
            headers,
            body,
            keep_alive,
        })
    }

    /// A chunked body: chunks until the empty one, then trailers until an empty line.
    async fn read_chunked(&mut self) -> Result<Vec<u8>, HttpError> {
        let mut body = Vec::new();
        loop {
            let line = self
                .read_line()
                .await?
                .ok_or_else(|| HttpError::Malformed("a chunked body ends early".into()))?;
            let size = line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| HttpError::Malformed(format!("chunk size {line:?}")))?;
            if size == 0 {
                while let Some(trailer) = self.read_line().await? {
                    if trailer.is_empty() {
                        break;
                    }
                }
                return Ok(body);
            }
            if body.len().saturating_add(size) > MAX_BODY {
                return Err(HttpError::Malformed("a chunked body past the bound".into()));
            }
            let start = body.len();
            body.resize(start + size, 0);
            self.stream.read_exact(&mut body[start..]).await?;
            let mut crlf = [0; 2];
            self.stream.read_exact(&mut crlf).await?;
            if &crlf != b"\r\n" {
                return Err(HttpError::Malformed("a chunk without its CRLF".into()));
            }
        }
    }

    /// One line without its CRLF; `None` at EOF before any byte.
    async fn read_line(&mut self) -> Result<Option<String>, HttpError> {
        let mut line = Vec::new();
        let read = (&mut self.stream)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') {
            return Err(HttpError::Malformed("a line too long or cut".into()));
        }
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        String::from_utf8(line)
            .map(Some)
            .map_err(|_| HttpError::Malformed("a header line that is not UTF-8".into()))
    }
}
