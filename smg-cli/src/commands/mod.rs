//! One module per subcommand; each is a thin layer over the library.

mod archive;
mod checkpoint;
mod convert;
mod crypt;
mod curate;
mod diff;
mod dropped;
mod embed;
mod export;
mod find;
mod folds;
mod info;
mod ingest;
mod init;
mod link;
mod merge;
mod neo4j;
mod retrieve;
mod scope;
mod share;
mod validate;
mod vault;
mod working;

use std::path::Path;

use smg_format::limits::Bound;
use smg_format::model::Timestamp;
use smg_format::{Error, Limits};

use crate::cli::{
    Cli, Command, EmbedArgs, EncodeArgs, EncodingArg, Global, KnowledgeCommand, LayoutArg,
    LinkCommand, PolicyCommand, ScopeCommand, TierCommand, VaultCommand,
};
use crate::io::Context;
use crate::secret::Secrets;
use crate::Outcome;

/// The time given with `flag` (`--now`, `--at`…), or `SMG-E020` naming the flag.
pub(crate) fn time_arg(flag: &str, given: Option<&str>) -> Result<Option<Timestamp>, Error> {
    let check =
        |t: &str| Timestamp::new(t).map_err(|e| Error::InvalidArgument(format!("{flag}: {e}")));
    given.map(check).transpose()
}

/// The limits the global flags set.
fn limits(global: &Global) -> Limits {
    let mut limits = match global.max_bytes {
        Some(n) => Limits::default().with_max_bytes(n),
        None => Limits::default(),
    };
    let counts = [
        (Bound::Nodes, global.max_nodes),
        (Bound::Edges, global.max_edges),
        (Bound::Turns, global.max_turns),
        (Bound::TurnBytes, global.max_turn_bytes),
        (Bound::Artifacts, global.max_artifacts),
        (Bound::Versions, global.max_versions),
        (Bound::DeltaChain, global.max_delta_chain),
    ];
    for (bound, value) in counts {
        if let Some(n) = value {
            limits = limits.with(bound, n);
        }
    }
    limits
}

pub(crate) fn run(cli: Cli) -> Result<Outcome, crate::Failure> {
    let ctx = Context {
        limits: limits(&cli.global),
        secrets: Secrets::new(cli.global.passphrase_file),
    };
    let wait = std::time::Duration::try_from_secs_f64(cli.global.wait).map_err(|_| {
        Error::InvalidArgument(format!(
            "--wait {} is not a number of seconds",
            cli.global.wait
        ))
    })?;
    match &cli.command {
        Command::Neo4j(c) => neo4j::run(c, &ctx, wait),
        Command::Mcp(a) => mcp(a, &ctx, wait),
        _ => Ok(run_file_command(cli.command, ctx, wait)?),
    }
}

/// `smg mcp`: serve until the client closes stdin.
fn mcp(
    a: &crate::cli::McpArgs,
    ctx: &Context,
    wait: std::time::Duration,
) -> Result<Outcome, crate::Failure> {
    // The header says whether the file is encrypted; the server reads the rest.
    let head = read_head(&a.file, smg_format::crypto::ENCRYPTED_HEADER_LEN)?;
    let mut options = smg_mcp::Options::new(&a.file)
        .read_only(a.read_only)
        .unbounded(a.unbounded)
        .limits(ctx.limits)
        .wait(wait);
    if smg_format::crypto::is_encrypted(&head) {
        options = options.passphrase(ctx.secrets.get()?);
    }
    if let Some(pass) = a.sealed.passphrase()? {
        options = options.seal_passphrase(pass);
    }
    // Loaded once, before the first message: each query is then embedded in
    // milliseconds.
    if let Some(model) = embed::load(&a.model)? {
        let embed = move |q: &str| smg_engine::embed::query(&model, q);
        options = options.embedder(smg_mcp::QueryEmbedder::new(embed));
    }
    options = options.tokens(a.tokenizer.tokens());
    options = options.follow_links(!a.links.no_links);
    let given = a.links.passphrases.clone();
    let lookup = move |name: &str| Ok(crate::secret::link_passphrase(&given, name)?);
    options = options.link_passphrases(smg_mcp::LinkPassphrases::new(lookup));
    smg_mcp::serve_stdio(options)?;
    Ok(Outcome::Success)
}

/// The first `n` bytes of `path` (fewer if it is shorter).
fn read_head(path: &std::path::Path, n: usize) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut head = Vec::with_capacity(n);
    std::fs::File::open(path)
        .map_err(io)?
        .take(n as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    Ok(head)
}

/// Every command but the Neo4j bridge: errors of the file and engine crates.
fn run_file_command(
    command: Command,
    ctx: Context,
    wait: std::time::Duration,
) -> Result<Outcome, smg_engine::Error> {
    if let Some(path) = rewritten(&command) {
        crate::io::lock_for_rewrite(path, wait)?;
    }
    Ok(match command {
        Command::Ingest(a) => return ingest::run(&a, &ctx),
        Command::Embed(a) => return embed::run(&a, &ctx),
        Command::Search(a) => return retrieve::search(&a, &ctx),
        Command::Context(a) => return retrieve::context(&a, &ctx),
        Command::Expand(a) => return retrieve::expand(&a, &ctx),
        Command::Index { file, json } => return retrieve::index(&file, json, &ctx),
        Command::Query {
            file,
            query,
            json,
            sealed,
            links,
        } => return find::query(&file, &query, json, &sealed, &links, &ctx),
        Command::Bench(crate::cli::BenchCommand::Locomo {
            dir,
            curate_at,
            model,
            tokenizer,
            json,
            questions,
            leave_one_out,
        }) => {
            let out = retrieve::LocomoOut {
                json,
                questions: questions.as_deref(),
                leave_one_out,
            };
            return retrieve::bench_locomo(&dir, curate_at.as_deref(), &model, &tokenizer, &out);
        }
        Command::Init(a) => init::run(&a),
        Command::Info(a) => info::run(&a, &ctx),
        Command::Cat(a) => info::cat(&a, &ctx),
        Command::Convert(a) => return convert::run(&a, &ctx),
        Command::Validate(a) => validate::run(&a, &ctx),
        Command::Encrypt(a) => crypt::encrypt(&a, &ctx),
        Command::Decrypt(a) => crypt::decrypt(&a, &ctx),
        Command::Rekey(a) => crypt::rekey(&a, &ctx),
        Command::Seal(a) => return crypt::seal(&a, &ctx),
        Command::Unseal(a) => return crypt::unseal(&a, &ctx),
        Command::Keygen { output } => crypt::keygen(&output),
        Command::Sign { file, key, output } => crypt::sign(&file, &key, output.as_deref(), &ctx),
        Command::Verify { file, public_key } => crypt::verify(&file, public_key.as_deref(), &ctx),
        Command::Vault(c) => vault::run(c, &ctx),
        Command::Archive(c) => archive::run(c, &ctx),
        Command::Diff(a) if a.delta => checkpoint::delta(&a, &ctx),
        Command::Diff(a) => diff::run(&a.a, &a.b, a.json, a.stat, &ctx),
        Command::Apply {
            base,
            deltas,
            output,
        } => checkpoint::apply(&base, &deltas, &output, &ctx),
        Command::Fork {
            file,
            output,
            branch,
            at,
        } => checkpoint::fork(&file, &output, &branch, at.as_deref(), &ctx),
        Command::Log(a) => checkpoint::log(&a, &ctx),
        Command::Link(c) => return link::run(c, &ctx),
        Command::Share(a) => return share::run(&a, &ctx),
        Command::Merge(a) => return merge::merge(&a, &ctx),
        Command::Export(a) => return export::run(&a, &ctx),
        Command::View(a) => return export::view(&a, &ctx),
        Command::Curate(a) => return curate::run(&a, &ctx),
        Command::Audit { file, json } => return curate::audit(&file, json, &ctx),
        Command::Restore { file, id } => return curate::restore(&file, &id, &ctx),
        Command::Tier(c) => return curate::tier(&c, &ctx),
        Command::Policy(c) => return curate::policy(&c, &ctx),
        Command::Knowledge(c) => return curate::knowledge(&c, &ctx),
        Command::Scope(c) => return scope::run(&c, &ctx),
        // Dispatched by `run`, before this function.
        Command::Neo4j(_) | Command::Mcp(_) => {
            return Err(Error::InvalidArgument("not a file command".into()).into())
        }
        Command::Migrate { file, output, json } => {
            return merge::migrate(&file, output.as_deref(), json, &ctx)
        }
    }?)
}

/// The file a command reads and then replaces (read-modify-write), whose writers must
/// take turns: locked before it is read, so that no update is lost.
fn rewritten(command: &Command) -> Option<&Path> {
    let (file, output) = match command {
        Command::Ingest(a) => (a.append.as_deref()?, a.output.as_deref()),
        Command::Embed(EmbedArgs {
            file: Some(file), ..
        })
        | Command::Index { file, .. }
        | Command::Vault(VaultCommand::Add { file, .. })
        | Command::Link(LinkCommand::Add { file, .. } | LinkCommand::Remove { file, .. }) => {
            (file.as_path(), None)
        }
        Command::Rekey(a) => (a.file.as_path(), a.output.as_deref()),
        Command::Seal(a) => (a.file.as_path(), a.output.as_deref()),
        Command::Unseal(a) => (a.file.as_path(), a.output.as_deref()),
        Command::Sign { file, output, .. } => (file.as_path(), output.as_deref()),
        Command::Migrate { file, output, .. } => (file.as_path(), output.as_deref()),
        Command::Curate(a) if !a.dry_run => (a.file.as_path(), None),
        Command::Search(a) if a.track => (a.file.as_path(), None),
        Command::Context(a) if a.track => (a.file.as_path(), None),
        Command::Expand(a) if a.track => (a.file.as_path(), None),
        Command::Restore { file, .. } => (file.as_path(), None),
        Command::Tier(TierCommand::Promote(a) | TierCommand::Demote(a)) => (a.file.as_path(), None),
        Command::Policy(PolicyCommand::Set(a)) => (a.file.as_path(), None),
        Command::Knowledge(KnowledgeCommand::Add(a)) => (a.file.as_path(), None),
        Command::Scope(ScopeCommand::Set(a)) => (a.file.as_path(), None),
        _ => return None,
    };
    Some(output.unwrap_or(file)).filter(|p| !crate::io::is_stdio(p))
}

/// An error unless `--index` goes with `--layout packed`.
fn index_needs_packed(index: bool, args: &EncodeArgs) -> Result<(), Error> {
    if index && args.layout != crate::cli::LayoutArg::Packed {
        return Err(Error::InvalidArgument(
            "--index stores the search index in the packed layout: add --layout packed".into(),
        ));
    }
    Ok(())
}

/// `doc` encoded as `args` say, with its search index stored when `index`: made from
/// the document in hand before it is consumed, as `smg index` would make it from the
/// written file.
fn encoded(
    doc: smg_format::Document,
    args: &EncodeArgs,
    index: bool,
    ctx: &Context,
) -> Result<Vec<u8>, smg_engine::Error> {
    let options = write_options(args)?;
    if index {
        smg_engine::search::encode_with_search_index(doc, &options, &ctx.limits)
    } else {
        Ok(smg_format::codec::into_bytes(doc, &options)?)
    }
}

pub(super) fn write_options(args: &EncodeArgs) -> Result<smg_format::WriteOptions, Error> {
    let encoding = match (args.layout, args.encoding) {
        (LayoutArg::Packed, Some(_)) => {
            return Err(Error::InvalidArgument(
                "--layout packed has its own encoding; leave out --encoding".into(),
            ))
        }
        (LayoutArg::Packed, None) => smg_format::Encoding::Packed,
        (LayoutArg::Json, e) => e.unwrap_or(EncodingArg::Brotli).into(),
    };
    let options = smg_format::WriteOptions::new(encoding);
    Ok(match args.level {
        Some(level) => options.with_level(level),
        None => options,
    })
}
