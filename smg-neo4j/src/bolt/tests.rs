use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use super::*;

fn quick() -> Timeouts {
    Timeouts {
        connect: Duration::from_millis(400),
        reply: Duration::from_millis(400),
    }
}

/// A server on a free port that runs `script` on the first connection.
fn serve(script: impl FnOnce(TcpStream) + Send + 'static) -> Target {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        if let Ok((stream, _)) = listener.accept() {
            script(stream);
        }
    });
    Target::parse(&format!("bolt://127.0.0.1:{port}")).unwrap()
}

fn read_message(s: &mut impl Read) -> (u8, Vec<Value>) {
    let mut body = Vec::new();
    loop {
        let mut size = [0u8; 2];
        s.read_exact(&mut size).unwrap();
        let n = u16::from_be_bytes(size) as usize;
        if n == 0 {
            break;
        }
        let mut part = vec![0; n];
        s.read_exact(&mut part).unwrap();
        body.extend(part);
    }
    match packstream::decode(&body).unwrap() {
        Value::Struct(tag, fields) => (tag, fields),
        other => panic!("{other:?}"),
    }
}

fn reply(s: &mut impl Write, tag: u8, fields: Vec<Value>) {
    let mut out = Vec::new();
    chunk(&Value::Struct(tag, fields), &mut out);
    s.write_all(&out).unwrap();
}

fn meta(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// Handshake to 5.4, HELLO and LOGON accepted.
fn greet(s: &mut (impl Read + Write)) {
    let mut hello = [0u8; 20];
    s.read_exact(&mut hello).unwrap();
    assert_eq!(hello[..4], PREAMBLE);
    s.write_all(&[0, 0, 4, 5]).unwrap();
    assert_eq!(read_message(s).0, HELLO);
    reply(s, SUCCESS, vec![meta(&[("server", "Fake/1.0".into())])]);
    let (tag, fields) = read_message(s);
    assert_eq!(tag, LOGON);
    assert_eq!(fields[0].get("scheme"), Some(&Value::from("none")));
    reply(s, SUCCESS, vec![meta(&[])]);
}

#[test]
fn a_query_returns_its_rows_and_a_failure_leaves_the_connection_usable() {
    let target = serve(|mut s| {
        greet(&mut s);
        assert_eq!(read_message(&mut s).0, RUN);
        assert_eq!(read_message(&mut s).0, PULL);
        reply(
            &mut s,
            SUCCESS,
            vec![meta(&[("fields", Value::List(vec!["x".into()]))])],
        );
        reply(&mut s, RECORD, vec![Value::List(vec![Value::Int(7)])]);
        reply(&mut s, SUCCESS, vec![meta(&[])]);
        // A failing query: FAILURE, the PULL ignored, then RESET.
        read_message(&mut s);
        read_message(&mut s);
        let failure = meta(&[
            ("code", "Neo.ClientError.Statement.SyntaxError".into()),
            ("message", "bad".into()),
        ]);
        reply(&mut s, FAILURE, vec![failure]);
        reply(&mut s, IGNORED, vec![]);
        assert_eq!(read_message(&mut s).0, RESET);
        reply(&mut s, SUCCESS, vec![meta(&[])]);
        read_message(&mut s);
        read_message(&mut s);
        reply(&mut s, SUCCESS, vec![meta(&[])]);
        reply(&mut s, SUCCESS, vec![meta(&[])]);
    });
    let mut conn = Connection::open(&target, &Auth::default(), quick()).unwrap();
    assert_eq!((conn.version(), conn.server()), ((5, 4), "Fake/1.0"));
    let rows = conn.run("RETURN 7 AS x", vec![], None).unwrap();
    assert_eq!(
        (rows.fields, rows.records),
        (vec!["x".to_string()], vec![vec![Value::Int(7)]])
    );
    let err = conn.run("RETRN", vec![], None).unwrap_err();
    assert_eq!(err.code(), "SMG-E304");
    assert!(err.to_string().contains("SyntaxError"), "{err}");
    assert!(conn.run("RETURN 1", vec![], None).is_ok());
}

#[test]
fn a_server_that_never_answers_times_out_with_its_code() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let target = Target::parse(&format!("bolt://{}", listener.local_addr().unwrap())).unwrap();
    thread::spawn(move || {
        // Accepts every connection and says nothing.
        let held: Vec<_> = listener.incoming().take(2).collect();
        thread::sleep(Duration::from_secs(3));
        drop(held);
    });
    let started = Instant::now();
    let err = Connection::open(&target, &Auth::default(), quick()).unwrap_err();
    assert_eq!(err.code(), "SMG-E301", "{err}");
    // Two handshakes of 0.4 s each, then the error.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn an_unanswered_handshake_is_tried_once_more_on_a_new_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let target = Target::parse(&format!("bolt://{}", listener.local_addr().unwrap())).unwrap();
    thread::spawn(move || {
        // The first connection is never answered, as FalkorDB does after a GOODBYE.
        let (silent, _) = listener.accept().unwrap();
        let (mut s, _) = listener.accept().unwrap();
        greet(&mut s);
        drop(silent);
    });
    let conn = Connection::open(&target, &Auth::default(), quick()).unwrap();
    assert_eq!(conn.version(), (5, 4));
}

#[test]
fn a_handshake_the_server_cuts_is_tried_once_more_on_a_new_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let target = Target::parse(&format!("bolt://{}", listener.local_addr().unwrap())).unwrap();
    thread::spawn(move || {
        // The first connection is closed once the handshake is read, as a FalkorDB
        // just started can do; the second is answered.
        let (mut cut, _) = listener.accept().unwrap();
        let mut hello = [0u8; 20];
        cut.read_exact(&mut hello).unwrap();
        drop(cut);
        let (mut s, _) = listener.accept().unwrap();
        greet(&mut s);
        // A third connection is cut too: a second cut in a row is an error.
        let (mut cut, _) = listener.accept().unwrap();
        cut.read_exact(&mut hello).unwrap();
        drop(cut);
        let (mut cut, _) = listener.accept().unwrap();
        cut.read_exact(&mut hello).unwrap();
        drop(cut);
    });
    let conn = Connection::open(&target, &Auth::default(), quick()).unwrap();
    assert_eq!(conn.version(), (5, 4));
    let err = Connection::open(&target, &Auth::default(), quick()).unwrap_err();
    assert_eq!(err.code(), "SMG-E303", "{err}");
    assert!(err.to_string().contains("handshake"), "{err}");
}

#[test]
fn a_port_nobody_listens_on_is_a_connection_error() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = Target::parse(&format!("bolt://127.0.0.1:{port}")).unwrap();
    let err = Connection::open(&target, &Auth::default(), quick()).unwrap_err();
    assert_eq!(err.code(), "SMG-E300", "{err}");
}

#[test]
fn an_http_port_is_named_as_such() {
    let target = serve(|mut s| {
        let mut hello = [0u8; 20];
        s.read_exact(&mut hello).unwrap();
        s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap();
    });
    let err = Connection::open(&target, &Auth::default(), quick()).unwrap_err();
    assert!(err.to_string().contains("HTTP"), "{err}");
}

#[test]
fn refused_credentials_are_an_authentication_error() {
    let target = serve(|mut s| {
        let mut hello = [0u8; 20];
        s.read_exact(&mut hello).unwrap();
        s.write_all(&[0, 0, 4, 5]).unwrap();
        read_message(&mut s);
        reply(&mut s, SUCCESS, vec![meta(&[])]);
        let (_, fields) = read_message(&mut s);
        assert_eq!(fields[0].get("principal"), Some(&Value::from("neo4j")));
        let failure = meta(&[
            ("code", "Neo.ClientError.Security.Unauthorized".into()),
            ("message", "no".into()),
        ]);
        reply(&mut s, FAILURE, vec![failure]);
    });
    let auth = Auth {
        basic: Some(("neo4j".into(), "wrong".into())),
    };
    let err = Connection::open(&target, &auth, quick()).unwrap_err();
    assert_eq!(err.code(), "SMG-E302", "{err}");
    assert!(!format!("{auth:?}").contains("wrong"));
}

#[test]
fn addresses_parse_and_bad_ones_say_why() {
    let t = Target::parse("neo4j://[::1]:7000").unwrap();
    assert_eq!((t.host.as_str(), t.port, t.tls), ("::1", 7000, false));
    assert_eq!(t.to_string(), "neo4j://[::1]:7000");
    for (uri, why) in [
        ("localhost:7687", "expected bolt://"),
        ("bolt://u:p@host", "credentials"),
        ("bolt+ssc://host", "unverified"),
        ("bolt://host:99999", "port"),
    ] {
        let err = Target::parse(uri).unwrap_err();
        assert!(err.to_string().contains(why), "{uri}: {err}");
        assert_eq!(err.code(), "SMG-E306");
    }
}

#[test]
fn bolt_s_speaks_tls_and_trusts_the_ca_given_and_no_other() {
    use rustls_pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, cert.cert.pem()).unwrap();
    let chain = vec![CertificateDer::from_pem_slice(cert.cert.pem().as_bytes()).unwrap()];
    let key = PrivateKeyDer::from_pem_slice(cert.key_pair.serialize_pem().as_bytes()).unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let config = std::sync::Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for tcp in listener.incoming().take(2) {
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, tcp.unwrap());
            let mut hello = [0u8; 20];
            if tls.read_exact(&mut hello).is_err() {
                continue; // the client refused our certificate
            }
            tls.write_all(&[0, 0, 4, 5]).unwrap();
            assert_eq!(read_message(&mut tls).0, HELLO);
            reply(&mut tls, SUCCESS, vec![meta(&[])]);
            read_message(&mut tls);
            reply(&mut tls, SUCCESS, vec![meta(&[])]);
        }
    });
    let target = Target::parse(&format!("bolt+s://127.0.0.1:{port}")).unwrap();
    let err = Connection::open(&target, &Auth::default(), quick()).unwrap_err();
    assert_eq!(err.code(), "SMG-E306", "{err}");
    // The certificate names localhost: reach it by that name, trusting its CA.
    let target = Target::parse(&format!("bolt+s://localhost:{port}"))
        .unwrap()
        .with_ca_file(ca);
    let conn = Connection::open(&target, &Auth::default(), quick()).unwrap();
    assert_eq!(conn.version(), (5, 4));
}
