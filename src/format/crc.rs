//! CRC-32C (Castagnoli), the checksum of v2 record batches and producer
//! snapshots. Verifying a segment is mostly this checksum, so it uses the
//! widest instructions the CPU offers (VPCLMULQDQ and AVX-512 where present,
//! SSE4.2 and PCLMULQDQ otherwise), chosen at run time.
//!
//! Two of crc-fast's paths serve it. Up to 256 bytes (a one-record
//! batch) its CRC-32C path runs the CPU's `crc32` instruction alone, the
//! fastest there is at that length. Longer inputs go to its generic
//! carry-less-multiply folding rather than to that path's blend of `crc32`
//! and `pclmulqdq`: where the two instructions share one execution unit
//! (AMD Zen 1), over 4 KiB to 256 KiB, the blend runs at 6.3-7.6 GB/s and
//! the folding alone at 9.1-9.7 GB/s (crc-fast's own figures put the two
//! level at 1 MiB on AMD Genoa). Both return the same value for every input; the
//! tests hold each to an independent implementation.

use std::sync::LazyLock;

use crc_fast::{CrcAlgorithm, CrcParams};

/// The longest input sent to crc-fast's CRC-32C path (its `crc32`-only
/// case); longer ones are folded.
const SHORT: usize = 256;

/// CRC-32C as a parameter set, which crc-fast computes by folding alone
/// (its folding constants are derived once, on first use).
static FOLDED: LazyLock<CrcParams> = LazyLock::new(|| {
    CrcParams::new(
        "CRC-32C",
        32,
        0x1EDC_6F41,
        0xFFFF_FFFF,
        true,
        0xFFFF_FFFF,
        0xE306_9283,
    )
});

/// CRC-32C of `bytes`, as Kafka's `Crc32C` computes it.
pub fn crc32c(bytes: &[u8]) -> u32 {
    // Both results are 64-bit values holding the 32-bit CRC.
    if bytes.len() <= SHORT {
        crc_fast::checksum(CrcAlgorithm::Crc32Iscsi, bytes) as u32
    } else {
        crc_fast::checksum_with_params(*FOLDED, bytes) as u32
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::crc32c;
    use proptest::prelude::*;

    #[test]
    fn rfc_3720_vectors() {
        assert_eq!(crc32c(b""), 0);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(crc32c(&ascending), 0x46DD_794E);
    }

    /// Every length on both sides of the switch between the two paths, at
    /// every alignment within a word, and one long input.
    #[test]
    fn both_paths_agree_with_independent_implementation() {
        let data: Vec<u8> = (0..2048u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for skip in 0..8 {
            for len in 0..=1024 {
                let slice = &data[skip..skip + len];
                assert_eq!(
                    crc32c(slice),
                    crc32c_reference::crc32c(slice),
                    "{len} bytes at {skip}"
                );
            }
        }
        let long: Vec<u8> = data.iter().cycle().take(3 << 20).copied().collect();
        assert_eq!(crc32c(&long), crc32c_reference::crc32c(&long));
    }

    proptest! {
        /// Every length and alignment, including the SIMD paths' block
        /// boundaries, agrees with an independent table-free implementation.
        #[test]
        fn agrees_with_independent_implementation(
            data in proptest::collection::vec(any::<u8>(), 0..9000),
            skip in 0usize..64,
        ) {
            let slice = data.get(skip..).unwrap_or_default();
            prop_assert_eq!(crc32c(slice), crc32c_reference::crc32c(slice));
        }
    }
}
