//! A large part of a stored index as Zstandard frames of a few megabytes, one after
//! another: together a stream any Zstandard decoder reads whole, and frames that
//! decompress side by side at open, where one frame of fifty megabytes takes one core
//! a hundred milliseconds and more.

use rayon::prelude::*;

use super::frames::{compressor, damaged, with_context};
use crate::error::Result;

/// Bytes of a part in one frame.
const PIECE: usize = 4 << 20;

/// `raw` as frames of at most [`PIECE`] bytes each (one frame when it is empty),
/// compressed side by side at `level`, each with its checksum. The same bytes give
/// the same frames, however many threads.
pub(crate) fn compress(raw: &[u8], level: i32) -> Result<Vec<u8>> {
    let pieces: Vec<&[u8]> = if raw.is_empty() {
        vec![raw]
    } else {
        raw.chunks(PIECE).collect()
    };
    let frames: Vec<Vec<u8>> = pieces
        .par_iter()
        .map_init(
            || compressor(level, &[]),
            |c, piece| match c {
                Ok(c) => c.compress(piece).map_err(|e| damaged(e.to_string())),
                Err(e) => Err(damaged(e.to_string())),
            },
        )
        .collect::<Result<_>>()?;
    Ok(frames.concat())
}

/// The frames `bytes` holds (as [`compress`] writes them, or a single frame),
/// decompressed side by side into one buffer of at most `most` bytes, each frame's
/// checksum checked.
pub(crate) fn decompress(bytes: &[u8], most: u64) -> std::result::Result<Vec<u8>, String> {
    use zstd::zstd_safe::{find_frame_compressed_size, get_error_name, get_frame_content_size};
    // Where each frame lies and how much it holds, from the frames' headers.
    let mut frames: Vec<(&[u8], usize)> = Vec::new();
    let (mut rest, mut total) = (bytes, 0u64);
    while !rest.is_empty() {
        let len = find_frame_compressed_size(rest).map_err(get_error_name)?;
        let size = get_frame_content_size(rest)
            .ok()
            .flatten()
            .ok_or("a frame without its size")?;
        total = total
            .checked_add(size)
            .filter(|&t| t <= most)
            .ok_or("more than the limit allows")?;
        let (frame, after) = rest.split_at_checked(len).ok_or("a frame cut short")?;
        frames.push((frame, usize::try_from(size).map_err(|e| e.to_string())?));
        rest = after;
    }
    if frames.is_empty() {
        return Err("no frame".into());
    }
    let mut out = vec![0u8; usize::try_from(total).map_err(|e| e.to_string())?];
    let mut slices: Vec<&mut [u8]> = Vec::with_capacity(frames.len());
    let mut free = out.as_mut_slice();
    for &(_, size) in &frames {
        let (slice, after) = free.split_at_mut(size);
        slices.push(slice);
        free = after;
    }
    frames
        .par_iter()
        .zip(slices)
        .try_for_each(|(&(frame, size), slice)| {
            let written = with_context(|context| {
                context
                    .decompress(slice, frame)
                    .map_err(|code| get_error_name(code).to_string())
            })?;
            (written == size)
                .then_some(())
                .ok_or_else(|| "a frame holds less than it says".to_string())
        })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_come_back_whole_and_damage_is_told() {
        let raw: Vec<u8> = (0..PIECE * 2 + 12345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let bytes = compress(&raw, 3).unwrap();
        assert_eq!(decompress(&bytes, u64::MAX).unwrap(), raw);
        // Three frames, and the whole is one stream for any Zstandard decoder.
        assert_eq!(zstd::decode_all(&bytes[..]).unwrap(), raw);
        assert_eq!(decompress(&compress(&[], 3).unwrap(), 0).unwrap(), b"");
        // A single frame, as an older index stored each part, reads the same.
        let one = zstd::bulk::compress(&raw, 3).unwrap();
        assert_eq!(decompress(&one, u64::MAX).unwrap(), raw);
        assert!(decompress(&bytes, raw.len() as u64 - 1).is_err());
        assert!(decompress(&bytes[..bytes.len() - 1], u64::MAX).is_err());
        assert!(decompress(&[], u64::MAX).is_err());
        let mut damaged = bytes.clone();
        let mid = damaged.len() / 2;
        damaged[mid] ^= 0xff;
        assert!(decompress(&damaged, u64::MAX).is_err());
    }
}
