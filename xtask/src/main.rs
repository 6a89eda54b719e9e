//! `cargo run -p xtask -- api|layers CRATE_FOLDER`: see the library's docs.
use anyhow::{bail, Result};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, dir] = args.as_slice() else {
        bail!("usage: xtask api|layers CRATE_FOLDER")
    };
    let tree = xtask::load_crate(dir)?;
    match command.as_str() {
        "api" => print!("{}", xtask::api::listing(&tree)),
        "layers" => {
            for ((from, to), via) in xtask::layers::file_edges(&tree) {
                println!("{} -> {} via {via}", tree.shown(&from), tree.shown(&to));
            }
            for circle in xtask::layers::circles(&tree) {
                println!("\ncircle:\n  {}", circle.join("\n  "));
            }
        }
        _ => bail!("unknown command `{command}`: api or layers"),
    }
    Ok(())
}
