//! A small synchronous Bolt client: what the bridge needs (auto-commit queries with
//! parameters, their records) and nothing else, with a deadline on every step.
//!
//! Why our own: `neo4rs` speaks Bolt 4 only, which FalkorDB refuses; the `neo4j` crate
//! speaks Bolt 5 but always says GOODBYE before closing, and FalkorDB (4.x) then loses
//! the handshake of the next connection it accepts, so every second run hung (found by
//! replaying the handshake from Python sockets; the official Python driver triggers it
//! too). Bolt lets a client close without GOODBYE, which is what we do.

mod net;
mod packstream;
mod uri;

use std::io::{Read, Write};
use std::time::Duration;

use net::{connect, cut_off, io_error, tls, Stream};

pub(crate) use packstream::encode as encode_value;
pub use packstream::Value;
pub use uri::Target;

use crate::Error;

/// How long to wait: for the TCP connection, and for each reply of the server.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Connecting, per address the host name resolves to.
    pub connect: Duration,
    /// Each read or write on an open connection.
    pub reply: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            reply: Duration::from_secs(120),
        }
    }
}

/// Credentials: none (FalkorDB, or Neo4j with auth disabled) or user and password.
#[derive(Clone, Default)]
pub struct Auth {
    /// `(user, password)`, or `None` for the `none` scheme.
    pub basic: Option<(String, String)>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.basic {
            Some((user, _)) => write!(f, "Auth(basic {user}, password hidden)"),
            None => f.write_str("Auth(none)"),
        }
    }
}

/// Bolt 5.4 down to 5.0, then 4.4: the versions whose messages this client sends.
const OFFER: [u8; 16] = [0, 4, 4, 5, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0];
const PREAMBLE: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];
/// A reply larger than this is refused rather than buffered.
const MAX_MESSAGE: usize = 1 << 30;

const HELLO: u8 = 0x01;
const RESET: u8 = 0x0F;
const RUN: u8 = 0x10;
const PULL: u8 = 0x3F;
const LOGON: u8 = 0x6A;
const SUCCESS: u8 = 0x70;
const RECORD: u8 = 0x71;
const IGNORED: u8 = 0x7E;
const FAILURE: u8 = 0x7F;

/// An open, authenticated Bolt connection.
pub struct Connection {
    stream: Stream,
    version: (u8, u8),
    server: String,
    target: String,
    timeouts: Timeouts,
    /// What opened it, to open it again.
    origin: Option<(Target, Auth)>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Connection({} Bolt {}.{} {})",
            self.target, self.version.0, self.version.1, self.server
        )
    }
}

/// The rows a query returned, with the names of its columns.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    /// Column names.
    pub fields: Vec<String>,
    /// One list of values per row, in column order.
    pub records: Vec<Vec<Value>>,
}

/// Why a connection could not be opened, and whether a new connection may be
/// answered where this one was not.
struct Failed {
    error: Error,
    again: bool,
}

impl From<Error> for Failed {
    fn from(error: Error) -> Self {
        let again = matches!(error, Error::Timeout(_));
        Failed { error, again }
    }
}

impl Connection {
    /// Connects, agrees on a Bolt version and authenticates.
    ///
    /// The handshake and the authentication wait for the connect timeout, not the reply
    /// timeout, and are tried a second time on a new connection if unanswered, or if
    /// the server cut the connection before answering the handshake: FalkorDB (4.x)
    /// loses the first handshake it is sent after any client said GOODBYE, can leave
    /// the HELLO of a connection opened just after another was cut unanswered, and,
    /// just started, can reset its first connection; it answers the next.
    pub fn open(target: &Target, auth: &Auth, timeouts: Timeouts) -> Result<Connection, Error> {
        let mut conn = match Self::shake(target, auth, timeouts) {
            Ok(conn) => conn,
            Err(first) if first.again => {
                Self::shake(target, auth, timeouts).map_err(|second| second.error)?
            }
            Err(first) => return Err(first.error),
        };
        conn.origin = Some((target.clone(), auth.clone()));
        Ok(conn)
    }

    /// Replaces a connection the server dropped with a new one to the same server.
    pub fn reopen(&mut self) -> Result<(), Error> {
        let (target, auth) = self
            .origin
            .clone()
            .ok_or_else(|| Error::Protocol("a connection with no address to reopen".into()))?;
        *self = Connection::open(&target, &auth, self.timeouts)?;
        Ok(())
    }

    fn shake(target: &Target, auth: &Auth, timeouts: Timeouts) -> Result<Connection, Failed> {
        let tcp = connect(target, timeouts)?;
        let stream = match target.tls_config()? {
            Some(config) => Stream::Tls(Box::new(tls(target, config, tcp)?)),
            None => Stream::Plain(tcp),
        };
        let mut conn = Connection {
            stream,
            version: (0, 0),
            server: String::new(),
            target: target.to_string(),
            origin: None,
            timeouts: Timeouts {
                reply: timeouts.connect,
                ..timeouts
            },
        };
        conn.set_timeout(timeouts.connect)?;
        conn.handshake()?;
        conn.authenticate(auth)?;
        conn.set_timeout(timeouts.reply)?;
        conn.timeouts = timeouts;
        Ok(conn)
    }

    fn set_timeout(&mut self, after: Duration) -> Result<(), Error> {
        let tcp = match &self.stream {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref(),
        };
        tcp.set_read_timeout(Some(after))
            .and_then(|_| tcp.set_write_timeout(Some(after)))
            .map_err(|e| Error::Connect(format!("{}: {e}", self.target)))
    }

    /// The Bolt version agreed, as `(major, minor)`.
    pub fn version(&self) -> (u8, u8) {
        self.version
    }

    /// The server's agent string, e.g. `Neo4j/5.13.0`.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn handshake(&mut self) -> Result<(), Failed> {
        let mut hello = PREAMBLE.to_vec();
        hello.extend_from_slice(&OFFER);
        let mut answer = [0u8; 4];
        let said = self
            .stream
            .write_all(&hello)
            .and_then(|_| self.stream.flush())
            .and_then(|_| self.stream.read_exact(&mut answer));
        if let Err(e) = said {
            let again = cut_off(&e);
            let error = io_error(e, &self.target, "the handshake", self.timeouts.reply);
            let again = again || matches!(error, Error::Timeout(_));
            return Err(Failed { error, again });
        }
        if &answer == b"HTTP" {
            return Err(Failed::from(Error::Protocol(format!(
                "{} answered in HTTP: that is Neo4j's HTTP port, Bolt's is usually 7687",
                self.target
            ))));
        }
        match answer {
            [0, 0, minor, 5] if minor <= 4 => self.version = (5, minor),
            [0, 0, 4, 4] => self.version = (4, 4),
            [0, 0, 0, 0] => {
                return Err(Failed::from(Error::Protocol(format!(
                    "{} speaks none of Bolt 5.0–5.4 and 4.4",
                    self.target
                ))))
            }
            other => {
                return Err(Failed::from(Error::Protocol(format!(
                    "{} answered the Bolt handshake with {other:02X?}: not a Bolt server",
                    self.target
                ))))
            }
        }
        Ok(())
    }

    fn authenticate(&mut self, auth: &Auth) -> Result<(), Error> {
        let agent = format!("smg/{}", env!("CARGO_PKG_VERSION"));
        let mut extra = vec![("user_agent".to_string(), Value::from(agent.as_str()))];
        if self.version >= (5, 3) {
            let product = Value::Map(vec![("product".into(), Value::from(agent.as_str()))]);
            extra.push(("bolt_agent".into(), product));
        }
        let token = auth_token(auth);
        // From 5.1 the credentials go in LOGON, before that in HELLO.
        if self.version < (5, 1) {
            extra.extend(token.clone());
        }
        let reply = self.request(&[message(HELLO, vec![Value::Map(extra)])], "HELLO")?;
        let meta = success(reply, "HELLO").map_err(auth_failure)?;
        self.server = meta
            .get("server")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if self.version >= (5, 1) {
            let reply = self.request(&[message(LOGON, vec![Value::Map(token)])], "LOGON")?;
            success(reply, "LOGON").map_err(auth_failure)?;
        }
        Ok(())
    }

    /// Runs `query` with `params` in an auto-commit transaction (in `database`, or the
    /// server's default) and returns every row.
    pub fn run(
        &mut self,
        query: &str,
        params: Vec<(String, Value)>,
        database: Option<&str>,
    ) -> Result<Rows, Error> {
        self.send(query, params, database)?;
        self.receive_rows(query)
    }

    /// Sends `query` like [`Connection::run`] without waiting for its answer, so that
    /// the server can start on it while the caller prepares the next; answers come in
    /// the order the queries were sent, each read by [`Connection::receive_rows`].
    pub fn send(
        &mut self,
        query: &str,
        params: Vec<(String, Value)>,
        database: Option<&str>,
    ) -> Result<(), Error> {
        let mut extra = Vec::new();
        if let Some(db) = database {
            extra.push(("db".to_string(), Value::from(db)));
        }
        let run = message(
            RUN,
            vec![Value::from(query), Value::Map(params), Value::Map(extra)],
        );
        let pull = message(PULL, vec![Value::Map(vec![("n".into(), Value::Int(-1))])]);
        let mut payload = Vec::new();
        for m in [&run, &pull] {
            chunk(m, &mut payload);
        }
        self.write(&payload, "a query")
    }

    /// The rows of the oldest query sent and not yet answered (`query` names it in
    /// errors). After a failure, queries sent after it are discarded by the server.
    pub fn receive_rows(&mut self, query: &str) -> Result<Rows, Error> {
        let header = self.receive("a query")?;
        let fields = match success(header, "RUN") {
            Ok(meta) => field_names(&meta),
            Err(e) => {
                self.recover()?;
                return Err(with_query(e, query));
            }
        };
        let mut records = Vec::new();
        loop {
            match self.receive("a query's rows")? {
                (RECORD, mut values) => match values.pop() {
                    Some(Value::List(row)) => records.push(row),
                    _ => return Err(Error::Protocol("a RECORD without a list of values".into())),
                },
                reply => {
                    if let Err(e) = success(reply, "PULL") {
                        self.recover()?;
                        return Err(with_query(e, query));
                    }
                    return Ok(Rows { fields, records });
                }
            }
        }
    }

    /// After a FAILURE the server ignores everything until RESET.
    fn recover(&mut self) -> Result<(), Error> {
        let mut reply = self.request(&[message(RESET, vec![])], "RESET")?;
        // What was sent after the failure (the PULL of a failed RUN, queries sent
        // ahead) is IGNORED.
        while reply.0 == IGNORED {
            reply = self.receive("RESET")?;
        }
        success(reply, "RESET").map(|_| ())
    }

    fn request(&mut self, messages: &[Value], what: &str) -> Result<(u8, Vec<Value>), Error> {
        let mut payload = Vec::new();
        messages.iter().for_each(|m| chunk(m, &mut payload));
        self.write(&payload, what)?;
        self.receive(what)
    }

    /// One whole message: its chunks up to the empty one, decoded.
    fn receive(&mut self, what: &str) -> Result<(u8, Vec<Value>), Error> {
        let mut body = Vec::new();
        loop {
            let mut size = [0u8; 2];
            self.read_exact(&mut size, what)?;
            let size = u16::from_be_bytes(size) as usize;
            if size == 0 {
                if body.is_empty() {
                    continue; // a keep-alive between messages
                }
                break;
            }
            if body.len() + size > MAX_MESSAGE {
                return Err(Error::Protocol(format!(
                    "a reply to {what} is larger than {MAX_MESSAGE} bytes"
                )));
            }
            let start = body.len();
            body.resize(start + size, 0);
            self.read_exact(&mut body[start..], what)?;
        }
        match packstream::decode(&body)? {
            Value::Struct(tag, fields) => Ok((tag, fields)),
            other => Err(Error::Protocol(format!(
                "a reply to {what} is not a message: {other:?}"
            ))),
        }
    }

    fn write(&mut self, bytes: &[u8], what: &str) -> Result<(), Error> {
        let target = self.target.clone();
        let after = self.timeouts.reply;
        self.stream
            .write_all(bytes)
            .and_then(|_| self.stream.flush())
            .map_err(|e| io_error(e, &target, what, after))
    }

    fn read_exact(&mut self, buf: &mut [u8], what: &str) -> Result<(), Error> {
        let target = self.target.clone();
        let after = self.timeouts.reply;
        self.stream
            .read_exact(buf)
            .map_err(|e| io_error(e, &target, what, after))
    }
}

fn message(tag: u8, fields: Vec<Value>) -> Value {
    Value::Struct(tag, fields)
}

/// Appends `message` cut into chunks, then the end marker. Bolt allows 65,535 bytes a
/// chunk; 16 KiB ones (what the official drivers send) pushed 20,000 nodes to
/// FalkorDB 2 % faster.
fn chunk(message: &Value, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    packstream::encode(message, &mut body);
    for part in body.chunks(0x4000) {
        out.extend_from_slice(&(part.len() as u16).to_be_bytes());
        out.extend_from_slice(part);
    }
    out.extend_from_slice(&[0, 0]);
}

fn auth_token(auth: &Auth) -> Vec<(String, Value)> {
    match &auth.basic {
        None => vec![("scheme".into(), Value::from("none"))],
        Some((user, password)) => vec![
            ("scheme".into(), Value::from("basic")),
            ("principal".into(), Value::from(user.as_str())),
            ("credentials".into(), Value::from(password.as_str())),
        ],
    }
}

/// SUCCESS gives its metadata; FAILURE and anything else become errors.
fn success((tag, mut fields): (u8, Vec<Value>), what: &str) -> Result<Value, Error> {
    let meta = fields.pop().unwrap_or(Value::Map(vec![]));
    match tag {
        SUCCESS => Ok(meta),
        FAILURE => {
            let text = |k| {
                meta.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let code = Some(text("code")).filter(|c| !c.is_empty());
            Err(Error::Server {
                code: code.unwrap_or_else(|| text("neo4j_code")),
                message: text("message"),
            })
        }
        IGNORED => Err(Error::Protocol(format!("the server ignored {what}"))),
        other => Err(Error::Protocol(format!(
            "the server answered {what} with message 0x{other:02X}"
        ))),
    }
}

fn auth_failure(e: Error) -> Error {
    match e {
        Error::Server { code, message } => Error::Auth(format!("{message} ({code})")),
        Error::Protocol(m) if m.contains("closed") => Error::Auth(format!(
            "the server closed the connection when given the credentials ({m}); FalkorDB does this when a password is set"
        )),
        other => other,
    }
}

fn with_query(e: Error, query: &str) -> Error {
    match e {
        Error::Server { code, message } => {
            let head: String = query.chars().take(60).collect();
            Error::Server {
                code,
                message: format!("{message} (in query `{head}…`)"),
            }
        }
        other => other,
    }
}

fn field_names(meta: &Value) -> Vec<String> {
    match meta.get("fields") {
        Some(Value::List(names)) => names
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
