use smg_format::{Document, Error};

use super::write_options;
use crate::cli::InitArgs;
use crate::io::{is_stdio, write_output};
use crate::Outcome;

pub(crate) fn run(args: &InitArgs) -> Result<Outcome, Error> {
    if !is_stdio(&args.file) && !args.force && args.file.exists() {
        return Err(Error::InvalidArgument(format!(
            "{} exists; pass --force to replace it",
            args.file.display()
        )));
    }
    let mut doc = Document::new(smg_format::model::Timestamp::now());
    doc.metadata.id = Some(uuid::Uuid::new_v4().to_string());
    doc.metadata.project_name = args.project.clone();
    smg_format::validate::ensure_valid(&doc, &smg_format::Limits::default())?;
    let bytes = smg_format::to_bytes(&doc, &write_options(&args.encode)?)?;
    write_output(&args.file, &bytes)?;
    Ok(Outcome::Success)
}
