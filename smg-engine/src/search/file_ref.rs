//! Which file of a network of linked memories a hit came from.

/// Which file of a network something came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileRef {
    /// The link's name; `None` for the file asked.
    pub name: Option<String>,
    /// The file's path: as given for the file asked, a linked one's resolved from it.
    pub path: String,
}

impl FileRef {
    /// The file at `path`, reached by the link `name` (`None`: the file asked).
    pub fn new(name: Option<String>, path: impl Into<String>) -> Self {
        FileRef {
            name,
            path: path.into(),
        }
    }

    /// What a context's date lines and search lines call the file: its link's name,
    /// or the file asked's name.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or_else(|| {
            let name = self.path.rsplit(['/', '\\']).next().unwrap_or(&self.path);
            if name.is_empty() {
                &self.path
            } else {
                name
            }
        })
    }

    /// `{"name": …, "path": …}`, as `--json` gives it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"name": self.name, "path": self.path})
    }
}
