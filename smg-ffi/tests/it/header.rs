//! The committed C header is what cbindgen makes of the crate today, and it names the
//! crate's version.

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .with_after_include(format!(
            "\n#define SMG_VERSION \"{}\"",
            env!("CARGO_PKG_VERSION")
        ))
        .generate()
        .expect("cbindgen")
        .write(&mut generated);
    let path = dir.join("include/smg.h");
    if std::env::var_os("SMG_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let committed = std::fs::read(&path).expect("include/smg.h is committed");
    assert!(
        committed == generated,
        "include/smg.h is stale: rerun with SMG_BLESS=1 cargo test -p smg-ffi --test it header::"
    );
    let text = String::from_utf8(committed).unwrap();
    assert!(text.contains(&format!(
        "#define SMG_VERSION \"{}\"",
        env!("CARGO_PKG_VERSION")
    )));
}
