//! CRC-32C (Castagnoli), the checksum of v2 record batches and producer
//! snapshots. Verifying a segment is mostly this checksum, so it uses the
//! widest instructions the CPU offers (VPCLMULQDQ and AVX-512 where present,
//! SSE4.2 otherwise), chosen at run time.

use crc_fast::CrcAlgorithm;

/// CRC-32C of `bytes`, as Kafka's `Crc32C` computes it.
pub fn crc32c(bytes: &[u8]) -> u32 {
    // CRC-32/ISCSI is CRC-32C; the 64-bit result holds a 32-bit value.
    crc_fast::checksum(CrcAlgorithm::Crc32Iscsi, bytes) as u32
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
