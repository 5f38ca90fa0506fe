//! Every codec path on arbitrary input, with a small output limit: the first
//! byte picks the codec.
#![no_main]

use kseg::format::Compression;
use kseg::format::codec::decompress;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else { return };
    let Ok(codec) = Compression::from_id(pick % 5) else { return };
    let mut out = Vec::new();
    if decompress(codec, input, 1 << 20, &mut out).is_ok() {
        assert!(out.len() <= 1 << 20);
    }
});
