//! Working memory for Brotli encoders and decoders, kept per thread for the next one: a
//! fresh encoder's tables and a fresh decoder's window come from pages the kernel must
//! zero and map on first touch.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;

use brotli::enc::combined_alloc::BrotliAlloc;
use brotli::{Allocator, SliceWrapper, SliceWrapperMut};

/// Most bytes of freed buffers a thread keeps; past it, all are let go (sizes that
/// depend on the input come and go).
const KEPT_BYTES: usize = 8 << 20;

/// A thread's freed buffers, by type and length.
#[derive(Default)]
struct Freed {
    buffers: HashMap<(TypeId, usize), Vec<Box<dyn Any>>>,
    bytes: usize,
}

thread_local! {
    static FREED: RefCell<Freed> = RefCell::default();
}

/// An allocator for Brotli's encoder that hands out, reset, the buffers encoders of
/// this thread freed before.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reused;

/// A buffer of `T`s from [`Reused`].
#[derive(Debug, Default)]
pub(crate) struct Cells<T>(Box<[T]>);

impl<T> SliceWrapper<T> for Cells<T> {
    fn slice(&self) -> &[T] {
        &self.0
    }
}

impl<T> SliceWrapperMut<T> for Cells<T> {
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Default + 'static> Allocator<T> for Reused {
    type AllocatedMemory = Cells<T>;

    fn alloc_cell(&mut self, len: usize) -> Cells<T> {
        let kept = FREED.with(|f| {
            let mut freed = f.borrow_mut();
            let kept = freed
                .buffers
                .get_mut(&(TypeId::of::<T>(), len))
                .and_then(Vec::pop);
            if kept.is_some() {
                freed.bytes -= size_of::<T>() * len;
            }
            kept
        });
        match kept.and_then(|b| b.downcast::<Box<[T]>>().ok()) {
            Some(mut cells) => {
                cells.fill(T::default());
                Cells(*cells)
            }
            None => Cells(vec![T::default(); len].into_boxed_slice()),
        }
    }

    fn free_cell(&mut self, data: Cells<T>) {
        if data.0.is_empty() {
            return;
        }
        let bytes = size_of::<T>() * data.0.len();
        if bytes > KEPT_BYTES {
            return;
        }
        FREED.with(|f| {
            let mut freed = f.borrow_mut();
            if freed.bytes + bytes > KEPT_BYTES {
                *freed = Freed::default();
            }
            freed.bytes += bytes;
            freed
                .buffers
                .entry((TypeId::of::<T>(), data.0.len()))
                .or_default()
                .push(Box::new(data.0));
        });
    }
}

impl BrotliAlloc for Reused {}

/// Bytes of compressed input a [`decompressor`] reads at a time.
const INPUT_BYTES: usize = 8 << 10;

/// A Brotli decoder of `compressed` whose window and tables are [`Reused`]: what many
/// small streams decoded one after another on a thread (archive blocks) should use.
pub(crate) fn decompressor<R: std::io::Read>(compressed: R) -> impl std::io::Read {
    let input = Allocator::<u8>::alloc_cell(&mut Reused, INPUT_BYTES);
    let invalid = std::io::Error::new(std::io::ErrorKind::InvalidData, "Invalid Data");
    let io = brotli::IntoIoReader(compressed);
    Decoding(brotli::DecompressorCustomIo::new(
        io, input, Reused, Reused, Reused, invalid,
    ))
}

/// A decoder over [`Reused`] memory, read as `std::io::Read`.
struct Decoding<R: std::io::Read>(
    brotli::DecompressorCustomIo<
        std::io::Error,
        brotli::IntoIoReader<R>,
        Cells<u8>,
        Reused,
        Reused,
        Reused,
    >,
);

impl<R: std::io::Read> std::io::Read for Decoding<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        brotli::CustomRead::read(&mut self.0, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the plain allocator gives, for the same parameters.
    fn plain(data: &[u8], params: &brotli::enc::BrotliEncoderParams) -> Vec<u8> {
        let mut out = Vec::new();
        brotli::BrotliCompress(&mut &data[..], &mut out, params).unwrap();
        out
    }

    #[test]
    fn reused_memory_compresses_as_fresh_memory_does() {
        let text: Vec<u8> = (0..400_000u32)
            .map(|i| b"abcde fghij, klm\n"[(i * 7 % 17) as usize] ^ (i % 251 == 0) as u8)
            .collect();
        // Each size twice, so that the second encoder of a size gets the first's
        // (dirty) buffers; and sizes between, so that buffers of other lengths are
        // kept and let go.
        for len in [300_000, 300_000, 10, 70_000, 0, 70_000, 400_000, 300_000] {
            for quality in [2, 5] {
                let params = brotli::enc::BrotliEncoderParams {
                    quality,
                    lgwin: 18,
                    ..Default::default()
                };
                let mut out = Vec::new();
                crate::envelope::cuts::compress_with(&text[..len], &params, &mut out).unwrap();
                assert_eq!(
                    out,
                    plain(&text[..len], &params),
                    "{len} bytes, quality {quality}"
                );
            }
        }
        FREED.with(|f| assert!((1..=KEPT_BYTES).contains(&f.borrow().bytes)));
    }
}
