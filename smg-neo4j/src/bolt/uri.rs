//! Where to connect: `bolt://`, `bolt+s://`, `neo4j://` and `neo4j+s://` addresses.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::Error;

/// A parsed server address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The scheme as given (`bolt`, `bolt+s`, `neo4j`, `neo4j+s`).
    pub scheme: String,
    /// Host name or IP address.
    pub host: String,
    /// Port; 7687 when the address has none.
    pub port: u16,
    /// Whether the connection is encrypted (the `+s` schemes).
    pub tls: bool,
    /// Extra certificate authorities (PEM) trusted besides the Mozilla roots.
    pub ca_file: Option<PathBuf>,
}

impl Target {
    /// Parses `scheme://host[:port]`. `neo4j://` is accepted as a direct connection to
    /// the one server named (the bridge does not route across a cluster).
    ///
    /// ```
    /// use smg_neo4j::bolt::Target;
    /// let t = Target::parse("bolt+s://db.example.com").unwrap();
    /// assert_eq!((t.host.as_str(), t.port, t.tls), ("db.example.com", 7687, true));
    /// assert!(Target::parse("http://localhost:7474").is_err());
    /// ```
    pub fn parse(uri: &str) -> Result<Target, Error> {
        let bad = |why: &str| Error::Uri(format!("`{uri}`: {why}"));
        let (scheme, rest) = uri
            .split_once("://")
            .ok_or_else(|| bad("expected bolt://HOST:PORT"))?;
        let tls = match scheme {
            "bolt" | "neo4j" => false,
            "bolt+s" | "neo4j+s" => true,
            "bolt+ssc" | "neo4j+ssc" => {
                return Err(bad(
                    "unverified certificates are not accepted; give the server's CA with --ca-file and use +s",
                ))
            }
            _ => return Err(bad("the scheme must be bolt, bolt+s, neo4j or neo4j+s")),
        };
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        if authority.contains('@') {
            return Err(bad(
                "credentials do not go in the address: use NEO4J_USERNAME / NEO4J_PASSWORD or --password-file",
            ));
        }
        let (host, port) = split_host_port(authority).ok_or_else(|| bad("bad host or port"))?;
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(Target {
            scheme: scheme.to_string(),
            host,
            port,
            tls,
            ca_file: None,
        })
    }

    /// Also trusts the certificate authorities in this PEM file.
    pub fn with_ca_file(mut self, path: PathBuf) -> Self {
        self.ca_file = Some(path);
        self
    }

    pub(crate) fn tls_config(&self) -> Result<Option<Arc<rustls::ClientConfig>>, Error> {
        if !self.tls {
            return Ok(None);
        }
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        if let Some(path) = &self.ca_file {
            use rustls_pki_types::pem::PemObject;
            let certs = rustls_pki_types::CertificateDer::pem_file_iter(path)
                .map_err(|e| Error::Uri(format!("--ca-file {}: {e}", path.display())))?;
            for cert in certs {
                let cert =
                    cert.map_err(|e| Error::Uri(format!("--ca-file {}: {e}", path.display())))?;
                roots
                    .add(cert)
                    .map_err(|e| Error::Uri(format!("--ca-file {}: {e}", path.display())))?;
            }
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::Uri(format!("TLS: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Some(Arc::new(config)))
    }
}

fn split_host_port(authority: &str) -> Option<(String, u16)> {
    // [v6]:port, host:port, or a host alone.
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => 7687,
            None => return None,
        };
        return Some((host.to_string(), port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host.to_string(), port.parse().ok()?)),
        None => Some((authority.to_string(), 7687)),
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}
