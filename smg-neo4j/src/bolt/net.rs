//! The transport under a Bolt connection: TCP with deadlines, TLS with rustls, and
//! what their failures mean.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::{Target, Timeouts};
use crate::Error;

pub(super) enum Stream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

pub(super) fn io_error(e: io::Error, target: &str, what: &str, after: Duration) -> Error {
    if let Some(tls) = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        return Error::Uri(format!(
            "{target}: TLS: {tls} (for a private CA, give --ca-file)"
        ));
    }
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Error::Timeout(format!(
            "{target} did not answer {what} within {} s",
            after.as_secs_f64()
        )),
        io::ErrorKind::UnexpectedEof => {
            Error::Protocol(format!("{target} closed the connection during {what}"))
        }
        _ => Error::Protocol(format!("{target}: {e} during {what}")),
    }
}

/// Whether `e` says the other end cut the connection (reset, aborted or closed).
pub(super) fn cut_off(e: &io::Error) -> bool {
    use io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    matches!(
        e.kind(),
        ConnectionReset | ConnectionAborted | UnexpectedEof | BrokenPipe
    )
}

pub(super) fn connect(target: &Target, timeouts: Timeouts) -> Result<TcpStream, Error> {
    let addrs = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| Error::Connect(format!("{target}: cannot resolve {}: {e}", target.host)))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeouts.connect) {
            Ok(tcp) => {
                tcp.set_nodelay(true)
                    .map_err(|e| Error::Connect(format!("{target}: {e}")))?;
                return Ok(tcp);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ) =>
            {
                last = Some(Error::Timeout(format!(
                    "{target}: no connection to {addr} within {} s",
                    timeouts.connect.as_secs_f64()
                )))
            }
            Err(e) => last = Some(Error::Connect(format!("{target}: {addr}: {e}"))),
        }
    }
    Err(last.unwrap_or_else(|| Error::Connect(format!("{target}: no address to connect to"))))
}

pub(super) fn tls(
    target: &Target,
    config: Arc<rustls::ClientConfig>,
    tcp: TcpStream,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, Error> {
    let name = rustls_pki_types::ServerName::try_from(target.host.clone())
        .map_err(|e| Error::Uri(format!("{target}: {e}")))?;
    let conn = rustls::ClientConnection::new(config, name)
        .map_err(|e| Error::Uri(format!("{target}: TLS: {e}")))?;
    Ok(rustls::StreamOwned::new(conn, tcp))
}
