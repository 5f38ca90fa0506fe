//! Bounded decompression of a batch's records area, for every framing Kafka
//! and its clients write: gzip members, xerial-framed or raw snappy, LZ4
//! frames (including the magic-0 header-checksum quirk) and zstd frames.

use std::io::Read;

use super::batch::Compression;
use super::error::FormatErrorKind;

/// Default cap on the decompressed size of one batch (128 MiB).
pub const DEFAULT_DECOMPRESS_LIMIT: usize = 128 << 20;

const XERIAL_MAGIC: &[u8] = b"\x82SNAPPY\x00";
const XERIAL_HEADER_LEN: usize = 16;
const LZ4_MAGIC: u32 = 0x184D_2204;
/// Most output a snappy block can produce per input byte (a 3-byte copy
/// emits at most 64 bytes), rounded up.
const SNAPPY_MAX_EXPANSION: usize = 22;

/// Decompresses `input` into `out` (cleared first), failing rather than
/// growing `out` past `limit` bytes.
pub fn decompress(
    compression: Compression,
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatErrorKind> {
    out.clear();
    match compression {
        Compression::None => append_bounded(out, input, limit),
        Compression::Gzip => {
            read_bounded(flate2::read::MultiGzDecoder::new(input), "gzip", limit, out)
        }
        Compression::Zstd => {
            let decoder = zstd::stream::read::Decoder::with_buffer(input)
                .map_err(|_| corrupt("zstd", "bad frame header"))?;
            read_bounded(decoder, "zstd", limit, out)
        }
        Compression::Snappy => decompress_snappy(input, limit, out),
        Compression::Lz4 => decompress_lz4_frame(input, limit, out),
    }
}

fn corrupt(codec: &'static str, reason: &'static str) -> FormatErrorKind {
    FormatErrorKind::Decompress { codec, reason }
}

fn append_bounded(out: &mut Vec<u8>, bytes: &[u8], limit: usize) -> Result<(), FormatErrorKind> {
    if out.len().saturating_add(bytes.len()) > limit {
        return Err(FormatErrorKind::DecompressedTooLarge {
            limit: limit as u64,
        });
    }
    out.extend_from_slice(bytes);
    Ok(())
}

fn read_bounded(
    reader: impl Read,
    codec: &'static str,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatErrorKind> {
    let mut limited = reader.take(limit as u64 + 1);
    limited
        .read_to_end(out)
        .map_err(|_| corrupt(codec, "invalid compressed data"))?;
    if out.len() > limit {
        return Err(FormatErrorKind::DecompressedTooLarge {
            limit: limit as u64,
        });
    }
    Ok(())
}

fn decompress_snappy(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), FormatErrorKind> {
    match input.strip_prefix(XERIAL_MAGIC) {
        Some(_) => decompress_xerial(
            input.get(XERIAL_HEADER_LEN..).unwrap_or_default(),
            limit,
            out,
        ),
        None => raw_snappy_block(input, limit, out),
    }
}

fn raw_snappy_block(block: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), FormatErrorKind> {
    let len =
        snap::raw::decompress_len(block).map_err(|_| corrupt("snappy", "bad block length"))?;
    // No snappy element expands more than 64 bytes out of 3 in: a larger
    // claim is corrupt, and must not be allocated.
    if len > block.len().saturating_mul(SNAPPY_MAX_EXPANSION) {
        return Err(corrupt(
            "snappy",
            "claimed length exceeds what the block can hold",
        ));
    }
    if out.len().saturating_add(len) > limit {
        return Err(FormatErrorKind::DecompressedTooLarge {
            limit: limit as u64,
        });
    }
    let start = out.len();
    out.resize(start + len, 0);
    let written = snap::raw::Decoder::new()
        .decompress(block, out.get_mut(start..).unwrap_or_default())
        .map_err(|_| corrupt("snappy", "invalid block"))?;
    out.truncate(start + written);
    Ok(())
}

/// xerial's stream: after the 16-byte header, blocks of `i32 BE length` + raw snappy.
fn decompress_xerial(
    mut rest: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatErrorKind> {
    while !rest.is_empty() {
        let (len_bytes, tail) = rest
            .split_at_checked(4)
            .ok_or(corrupt("snappy", "truncated xerial block length"))?;
        let len = u32::from_be_bytes(len_bytes.try_into().unwrap_or_default()) as usize;
        let (block, tail) = tail
            .split_at_checked(len)
            .ok_or(corrupt("snappy", "truncated xerial block"))?;
        raw_snappy_block(block, limit, out)?;
        rest = tail;
    }
    Ok(())
}

fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], FormatErrorKind> {
    let (head, tail) = rest
        .split_at_checked(n)
        .ok_or(corrupt("lz4", "stream ended prematurely"))?;
    *rest = tail;
    Ok(head)
}

fn take_u32_le(rest: &mut &[u8]) -> Result<u32, FormatErrorKind> {
    let bytes = take(rest, 4)?;
    Ok(u32::from_le_bytes(bytes.try_into().unwrap_or_default()))
}

/// One LZ4 frame, as Kafka's `Lz4BlockInputStream` reads it: independent
/// blocks only, optional content size and block checksums skipped, the
/// header checksum and content checksum not verified.
fn decompress_lz4_frame(
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatErrorKind> {
    let mut rest = input;
    if take_u32_le(&mut rest)? != LZ4_MAGIC {
        return Err(corrupt("lz4", "invalid magic bytes"));
    }
    let descriptor = take(&mut rest, 2)?;
    let (flg, bd) = match descriptor {
        [flg, bd] => (*flg, *bd),
        _ => return Err(corrupt("lz4", "frame descriptor corrupted")),
    };
    if flg >> 6 != 1 {
        return Err(corrupt("lz4", "unsupported frame version"));
    }
    if flg & 0x20 == 0 {
        return Err(corrupt("lz4", "dependent block stream is unsupported"));
    }
    let block_max = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        _ => return Err(corrupt("lz4", "block size value must be between 4 and 7")),
    };
    let has_block_checksum = flg & 0x10 != 0;
    if flg & 0x08 != 0 {
        take(&mut rest, 8)?;
    }
    take(&mut rest, 1)?; // header checksum
    loop {
        let size = take_u32_le(&mut rest)?;
        if size == 0 {
            return Ok(());
        }
        let stored = size & 0x8000_0000 != 0;
        let len = (size & 0x7fff_ffff) as usize;
        if len > block_max {
            return Err(corrupt("lz4", "block size exceeds the frame's maximum"));
        }
        let block = take(&mut rest, len)?;
        if stored {
            append_bounded(out, block, limit)?;
        } else {
            lz4_block(block, block_max, limit, out)?;
        }
        if has_block_checksum {
            take(&mut rest, 4)?;
        }
    }
}

fn lz4_block(
    block: &[u8],
    block_max: usize,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), FormatErrorKind> {
    let start = out.len();
    if start > limit {
        return Err(FormatErrorKind::DecompressedTooLarge {
            limit: limit as u64,
        });
    }
    out.resize(start + block_max, 0);
    let written = lz4_flex::block::decompress_into(block, out.get_mut(start..).unwrap_or_default())
        .map_err(|_| corrupt("lz4", "invalid block"))?;
    out.truncate(start + written);
    if out.len() > limit {
        return Err(FormatErrorKind::DecompressedTooLarge {
            limit: limit as u64,
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use std::io::Write;

    fn roundtrip(compression: Compression, compressed: &[u8], expected: &[u8]) {
        let mut out = Vec::new();
        decompress(compression, compressed, DEFAULT_DECOMPRESS_LIMIT, &mut out).unwrap();
        assert_eq!(out, expected);
    }

    fn payload() -> Vec<u8> {
        (0..100_000u32)
            .flat_map(|i| (i % 251).to_be_bytes())
            .collect()
    }

    #[test]
    fn reads_gzip_with_any_os_byte_and_concatenated_members() {
        let data = payload();
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&data).unwrap();
        let mut member = enc.finish().unwrap();
        member[9] = 0xff;
        let mut two = member.clone();
        two.extend_from_slice(&member);
        let mut expected = data.clone();
        expected.extend_from_slice(&data);
        roundtrip(Compression::Gzip, &two, &expected);
    }

    #[test]
    fn reads_raw_and_xerial_snappy() {
        let data = payload();
        let raw = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        roundtrip(Compression::Snappy, &raw, &data);
        let mut xerial = XERIAL_MAGIC.to_vec();
        xerial.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1]);
        for chunk in data.chunks(32 * 1024) {
            let block = snap::raw::Encoder::new().compress_vec(chunk).unwrap();
            xerial.extend_from_slice(&(block.len() as u32).to_be_bytes());
            xerial.extend_from_slice(&block);
        }
        roundtrip(Compression::Snappy, &xerial, &data);
    }

    #[test]
    fn reads_lz4_frames_with_and_without_content_checksum() {
        let data = payload();
        for checksum in [false, true] {
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .content_checksum(checksum);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            enc.write_all(&data).unwrap();
            roundtrip(Compression::Lz4, &enc.finish().unwrap(), &data);
        }
    }

    #[test]
    fn reads_zstd() {
        let data = payload();
        roundtrip(
            Compression::Zstd,
            &zstd::encode_all(&data[..], 3).unwrap(),
            &data,
        );
    }

    #[test]
    fn refuses_to_inflate_past_the_limit() {
        let data = vec![0u8; 1 << 20];
        let gz = {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            enc.write_all(&data).unwrap();
            enc.finish().unwrap()
        };
        let zs = zstd::encode_all(&data[..], 3).unwrap();
        let sn = snap::raw::Encoder::new().compress_vec(&data).unwrap();
        for (c, bytes) in [
            (Compression::Gzip, gz),
            (Compression::Zstd, zs),
            (Compression::Snappy, sn),
        ] {
            let mut out = Vec::new();
            let err = decompress(c, &bytes, 1000, &mut out).unwrap_err();
            assert_eq!(err, FormatErrorKind::DecompressedTooLarge { limit: 1000 });
            assert!(out.len() <= 1001);
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for c in [
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            let mut out = Vec::new();
            assert!(
                decompress(
                    c,
                    &[
                        0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82, 0xff, 0xff, 0xff, 0x7f
                    ],
                    1 << 20,
                    &mut out
                )
                .is_err()
            );
        }
    }
}
