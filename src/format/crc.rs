//! CRC-32C (Castagnoli), the checksum of v2 record batches and producer
//! snapshots. Verifying a segment is mostly this checksum, so it uses the
//! widest instructions the CPU offers, chosen at run time.
//!
//! Two of crc-fast's paths serve it, chosen by what the CPU has. Its
//! CRC-32C path runs the CPU's `crc32` instructions, blended with
//! carry-less multiplication (`pclmulqdq`, `pmull`) on longer inputs; its
//! generic folding runs carry-less multiplication alone. On x86-64 with
//! AVX-512 and VPCLMULQDQ (Intel from Ice Lake, AMD from Zen 4) the blend is
//! the faster at every length: on an Intel Xeon with AMX, over data in
//! cache, 33 against 73 ns for 1 KiB and 154 against 193 ns for 16 KiB. On
//! aarch64 crc-fast's own figures give the blend as much as the folding of
//! other 32-bit CRCs or more (Graviton4, Apple M3). On x86 without those the
//! blend runs on 128-bit registers, and where `crc32` and `pclmulqdq` share
//! one execution unit (AMD Zen 1) it ran at 6.3-7.6 GB/s over 4 KiB to
//! 256 KiB against 9.1-9.7 GB/s for the folding, so inputs over 256 bytes
//! are folded there (up to 256 bytes the blend runs `crc32` alone, the
//! fastest there is at that length). Both return the same value for every
//! input; the tests hold each to an independent implementation.

use std::sync::LazyLock;

use crc_fast::{CrcAlgorithm, CrcParams};

/// The longest input sent to crc-fast's CRC-32C path on a CPU where longer
/// ones are folded: up to here that path runs the `crc32` instruction alone.
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

/// Whether crc-fast's CRC-32C path is the faster at every length on this
/// CPU: everywhere but on x86 without AVX-512 (VL) and VPCLMULQDQ, where it
/// blends `crc32` with 128-bit carry-less multiplication.
static BLEND_EVERYWHERE: LazyLock<bool> = LazyLock::new(|| {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
    }
    #[cfg(target_arch = "x86")]
    {
        false
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
    {
        true
    }
});

/// CRC-32C of `bytes`, as Kafka's `Crc32C` computes it.
pub fn crc32c(bytes: &[u8]) -> u32 {
    if bytes.len() <= SHORT || *BLEND_EVERYWHERE {
        blended(bytes)
    } else {
        folded(bytes)
    }
}

/// CRC-32C by crc-fast's CRC-32C path.
fn blended(bytes: &[u8]) -> u32 {
    // The result is a 64-bit value holding the 32-bit CRC.
    crc_fast::checksum(CrcAlgorithm::Crc32Iscsi, bytes) as u32
}

/// CRC-32C by crc-fast's generic carry-less-multiply folding.
fn folded(bytes: &[u8]) -> u32 {
    crc_fast::checksum_with_params(*FOLDED, bytes) as u32
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::{blended, crc32c, folded};
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

    /// Both paths, whichever this CPU takes, at every length up to 1 KiB
    /// (across the switch at 256 bytes and the SIMD block sizes), at every
    /// alignment within a word, and one long input.
    #[test]
    fn both_paths_agree_with_independent_implementation() {
        let data: Vec<u8> = (0..2048u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for skip in 0..8 {
            for len in 0..=1024 {
                let slice = &data[skip..skip + len];
                let want = crc32c_reference::crc32c(slice);
                assert_eq!(crc32c(slice), want, "{len} bytes at {skip}");
                assert_eq!(blended(slice), want, "blended, {len} bytes at {skip}");
                assert_eq!(folded(slice), want, "folded, {len} bytes at {skip}");
            }
        }
        let long: Vec<u8> = data.iter().cycle().take(3 << 20).copied().collect();
        let want = crc32c_reference::crc32c(&long);
        assert_eq!(crc32c(&long), want);
        assert_eq!(blended(&long), want);
        assert_eq!(folded(&long), want);
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
            let want = crc32c_reference::crc32c(slice);
            prop_assert_eq!(crc32c(slice), want);
            prop_assert_eq!(blended(slice), want);
            prop_assert_eq!(folded(slice), want);
        }
    }
}
