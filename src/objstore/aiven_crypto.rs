//! Decryption of segments that Aiven's tiered storage for Apache Kafka
//! stored with `encryption.enabled`. Every segment has its own AES-256 data
//! key and additional authenticated data (AAD), both in the manifest's
//! `encryption` object: `"dataKey"` is `"<key pair id>:<base64>"`, the data
//! key wrapped with the RSA public key of that key pair
//! (`RSA/NONE/OAEPWithSHA3-512AndMGF1Padding`: OAEP with SHA3-512 as both
//! the label hash and the MGF1 hash, empty label), and `"aad"` is base64.
//! Every chunk of the `.log` object and every index in the `.indexes`
//! object is stored as one AES-GCM message: a 12-byte IV, the ciphertext,
//! then the 16-byte tag, all under the segment's one key and AAD. A
//! compressed segment is compressed before it is encrypted, so a chunk is
//! decrypted first and then decompressed. An empty index is stored as no
//! bytes at all (no IV, no tag).

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use aes_gcm::aead::AeadInOut;
use aes_gcm::{Aes256Gcm, KeyInit, Nonce, Tag};
use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use rsa::pkcs8::DecodePrivateKey;
use rsa::{Oaep, PrivateKey};
use serde_json::Value;
use sha3::Sha3_512;

/// Bytes of the IV in front of every stored chunk.
const IV_SIZE: usize = 12;
/// Bytes of the GCM tag behind every stored chunk.
const TAG_SIZE: usize = 16;
/// Bytes of an AES-256 key.
const KEY_SIZE: usize = 32;
/// The largest PEM file read as a key (a 16384-bit key's PEM is about 13 KiB).
const MAX_PEM: u64 = 1 << 20;
/// The longest base64 text taken for a wrapped data key or an AAD (a
/// 16384-bit RSA ciphertext is under 2,800 characters).
const MAX_BASE64: usize = 1 << 14;

/// Base64 as Java's `Base64.getDecoder()` reads it: the standard alphabet,
/// padding optional.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// One RSA private key and what it was given for.
struct RingKey {
    /// The key pair id it was given for; `None` for a key tried for any id.
    id: Option<String>,
    /// The file it was read from.
    path: PathBuf,
    key: PrivateKey,
}

/// The RSA private keys kseg was given, by key-pair id.
pub struct KeyRing {
    keys: Vec<RingKey>,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.keys.iter().map(|k| (&k.id, &k.path)))
            .finish()
    }
}

/// Reads a PKCS#8 PEM private key (what Aiven's
/// `encryption.key.pairs.<id>.private.key.file` holds).
fn read_private_key(path: &Path) -> Result<PrivateKey, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_PEM + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{shown}: {e}"))?;
    if text.len() as u64 > MAX_PEM {
        return Err(format!("{shown}: over {MAX_PEM} bytes, not a PEM key"));
    }
    PrivateKey::from_pkcs8_pem(&text).map_err(|e| {
        format!("{shown}: not a PKCS#8 PEM RSA private key (\"-----BEGIN PRIVATE KEY-----\"): {e}")
    })
}

/// Splits a key spec into its key pair id (if it names one) and its path:
/// "ID=PATH" when the text before the first `=` is not empty and holds no
/// path separator, else the whole spec is a path.
fn split_spec(spec: &str) -> (Option<&str>, &str) {
    match spec.split_once('=') {
        Some((id, path)) if !id.is_empty() && !id.contains(['/', '\\']) => (Some(id), path),
        _ => (None, spec),
    }
}

/// Decodes a base64 field of the manifest's `encryption` object.
fn base64_field(text: &str, what: &str) -> Result<Vec<u8>, String> {
    if text.len() > MAX_BASE64 {
        return Err(format!(
            "{what}: {} characters of base64, over {MAX_BASE64}",
            text.len()
        ));
    }
    BASE64
        .decode(text)
        .map_err(|e| format!("{what}: bad base64: {e}"))
}

impl KeyRing {
    /// Loads keys from `specs`: "ID=PATH" (a PKCS#8 PEM file for key pair ID) or "PATH" (a key for any id).
    ///
    /// A spec is "ID=PATH" when the text before its first `=` is not empty
    /// and holds no `/` or `\`; a path with `=` in its first component is
    /// written with a directory in front (`./a=b.pem`).
    pub fn load(specs: &[String]) -> Result<Self, String> {
        let mut keys = Vec::with_capacity(specs.len());
        for spec in specs {
            let (id, path) = split_spec(spec);
            if path.is_empty() {
                return Err(format!("key {spec:?}: no file after the key pair id"));
            }
            let path = PathBuf::from(path);
            let key = read_private_key(&path)?;
            keys.push(RingKey {
                id: id.map(str::to_string),
                path,
                key,
            });
        }
        Ok(Self { keys })
    }

    /// The segment's data key, unwrapped from the manifest's `encryption` JSON object; the error names the key pair id when no key matches.
    ///
    /// The keys given for that id are tried first, then the keys given for
    /// any id; the first that unwraps the data key is taken (OAEP checks
    /// its padding, so a wrong key is refused, not taken).
    pub fn data_key(&self, encryption: &Value) -> Result<DataKey, String> {
        let text = |name: &str| -> Result<&str, String> {
            encryption
                .get(name)
                .ok_or_else(|| format!("the manifest's encryption has no \"{name}\""))?
                .as_str()
                .ok_or_else(|| format!("the manifest's encryption \"{name}\" is not text"))
        };
        let wrapped = text("dataKey")?;
        let (id, wrapped) = match wrapped.split_once(':') {
            Some((id, rest)) if !id.trim().is_empty() && !rest.contains(':') => (id, rest),
            _ => {
                return Err(
                    "the manifest's dataKey is not \"<key pair id>:<base64 wrapped key>\"".into(),
                );
            }
        };
        let wrapped = base64_field(wrapped, "the manifest's dataKey")?;
        if wrapped.is_empty() {
            return Err("the manifest's dataKey wraps nothing".into());
        }
        let aad = base64_field(text("aad")?, "the manifest's aad")?;
        let candidates = self
            .keys
            .iter()
            .filter(|k| k.id.as_deref() == Some(id))
            .chain(self.keys.iter().filter(|k| k.id.is_none()));
        let mut tried = Vec::new();
        for ring_key in candidates {
            match ring_key.key.decrypt(Oaep::<Sha3_512>::new(), &wrapped) {
                Ok(key) => {
                    let key: [u8; KEY_SIZE] = key.as_slice().try_into().map_err(|_| {
                        format!(
                            "key pair {id:?}: {} unwraps the data key to {} bytes, not an AES-256 key",
                            ring_key.path.display(),
                            key.len()
                        )
                    })?;
                    return Ok(DataKey { key, aad });
                }
                Err(e) => tried.push(format!("{} ({e})", ring_key.path.display())),
            }
        }
        if tried.is_empty() {
            let ids: Vec<&str> = self.keys.iter().filter_map(|k| k.id.as_deref()).collect();
            Err(if ids.is_empty() {
                format!(
                    "the segment's data key is wrapped with key pair {id:?}; give its private key (PKCS#8 PEM)"
                )
            } else {
                format!(
                    "the segment's data key is wrapped with key pair {id:?}; keys were given only for {}",
                    ids.iter()
                        .map(|i| format!("{i:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        } else {
            Err(format!(
                "no key given unwraps the segment's data key (key pair {id:?}); tried {}",
                tried.join(", ")
            ))
        }
    }
}

/// One segment's AES-256 data key and AAD.
#[derive(Clone)]
pub struct DataKey {
    key: [u8; KEY_SIZE],
    aad: Vec<u8>,
}

impl fmt::Debug for DataKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataKey")
            .field("key", &"<secret>")
            .field("aad_len", &self.aad.len())
            .finish()
    }
}

impl DataKey {
    /// Decrypts one stored chunk (IV ‖ ciphertext ‖ tag) into `out` (cleared first); an error says why (too short, tag mismatch).
    pub fn decrypt_chunk(&self, stored: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        out.clear();
        if stored.len() < IV_SIZE + TAG_SIZE {
            return Err(format!(
                "an encrypted chunk of {} bytes, shorter than its {IV_SIZE}-byte IV and {TAG_SIZE}-byte tag",
                stored.len()
            ));
        }
        let (iv, rest) = stored.split_at(IV_SIZE);
        let (ciphertext, tag) = rest.split_at(rest.len() - TAG_SIZE);
        let nonce = Nonce::try_from(iv).map_err(|_| "a bad IV".to_string())?;
        let tag = Tag::try_from(tag).map_err(|_| "a bad tag".to_string())?;
        let cipher = Aes256Gcm::new(&self.key.into());
        out.extend_from_slice(ciphertext);
        cipher
            .decrypt_inout_detached(&nonce, &self.aad, out.as_mut_slice().into(), &tag)
            .map_err(|_| {
                out.clear();
                "the AES-GCM tag does not match: the chunk is damaged, or not of this segment (another data key or AAD)".to_string()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;
    use serde_json::json;

    fn data_key() -> DataKey {
        DataKey {
            key: std::array::from_fn(|i| i as u8),
            aad: b"segment aad".to_vec(),
        }
    }

    /// IV ‖ ciphertext ‖ tag, as Aiven stores a chunk.
    fn encrypt(key: &DataKey, iv: [u8; IV_SIZE], plain: &[u8]) -> Vec<u8> {
        let cipher = Aes256Gcm::new(&key.key.into());
        let mut body = plain.to_vec();
        let tag = cipher
            .encrypt_inout_detached(&iv.into(), &key.aad, body.as_mut_slice().into())
            .unwrap();
        [iv.as_slice(), &body, tag.as_slice()].concat()
    }

    #[test]
    fn chunk_round_trip() {
        let key = data_key();
        let plain = b"a kafka record batch, or an index".repeat(100);
        let stored = encrypt(&key, [7; IV_SIZE], &plain);
        assert_eq!(stored.len(), plain.len() + IV_SIZE + TAG_SIZE);
        let mut out = b"left over".to_vec();
        key.decrypt_chunk(&stored, &mut out).unwrap();
        assert_eq!(out, plain);
        // An empty plaintext is an IV and a tag.
        let stored = encrypt(&key, [9; IV_SIZE], b"");
        assert_eq!(stored.len(), IV_SIZE + TAG_SIZE);
        key.decrypt_chunk(&stored, &mut out).unwrap();
        assert!(out.is_empty());
    }

    /// The GCM test vector of the AES-GCM specification's test case 16
    /// (AES-256, 12-byte IV, 60-byte plaintext, 20-byte AAD).
    #[test]
    fn gcm_spec_vector() {
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        let key = DataKey {
            key: hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
                .try_into()
                .unwrap(),
            aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
        };
        let stored = hex(concat!(
            "cafebabefacedbaddecaf888",
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa",
            "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            "76fc6ece0f4e1768cddf8853bb2d551b",
        ));
        let mut out = Vec::new();
        key.decrypt_chunk(&stored, &mut out).unwrap();
        assert_eq!(
            out,
            hex(concat!(
                "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
                "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
            ))
        );
    }

    #[test]
    fn chunk_errors() {
        let key = data_key();
        let mut out = vec![1, 2, 3];
        let err = key.decrypt_chunk(&[0; 27], &mut out).unwrap_err();
        assert!(err.contains("27 bytes"), "{err}");
        assert!(out.is_empty());
        let err = key.decrypt_chunk(&[], &mut out).unwrap_err();
        assert!(err.contains("0 bytes"), "{err}");

        let stored = encrypt(&key, [3; IV_SIZE], b"some bytes of a segment");
        for at in [0, IV_SIZE, stored.len() - 1] {
            let mut bad = stored.clone();
            bad[at] ^= 1;
            let err = key.decrypt_chunk(&bad, &mut out).unwrap_err();
            assert!(err.contains("tag does not match"), "{err}");
            assert!(out.is_empty());
        }
        let other_aad = DataKey {
            key: key.key,
            aad: b"another segment".to_vec(),
        };
        let err = other_aad.decrypt_chunk(&stored, &mut out).unwrap_err();
        assert!(err.contains("tag does not match"), "{err}");
        let other_key = DataKey {
            key: [0; KEY_SIZE],
            aad: key.aad.clone(),
        };
        assert!(other_key.decrypt_chunk(&stored, &mut out).is_err());
    }

    proptest! {
        #[test]
        fn any_bytes_decrypt_without_panic(stored in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut out = Vec::new();
            prop_assert!(data_key().decrypt_chunk(&stored, &mut out).is_err());
            prop_assert!(out.is_empty());
        }
    }

    #[test]
    fn specs_split() {
        assert_eq!(split_spec("k1=/keys/a.pem"), (Some("k1"), "/keys/a.pem"));
        assert_eq!(split_spec("/keys/a.pem"), (None, "/keys/a.pem"));
        assert_eq!(split_spec("./a=b.pem"), (None, "./a=b.pem"));
        assert_eq!(split_spec("=a.pem"), (None, "=a.pem"));
        assert_eq!(split_spec("k=a=b.pem"), (Some("k"), "a=b.pem"));
    }

    #[test]
    fn load_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let err = KeyRing::load(&[missing.display().to_string()]).unwrap_err();
        assert!(err.contains("missing.pem"), "{err}");
        let junk = dir.path().join("junk.pem");
        std::fs::write(
            &junk,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        )
        .unwrap();
        let err = KeyRing::load(&[format!("k={}", junk.display())]).unwrap_err();
        assert!(err.contains("PKCS#8"), "{err}");
        let err = KeyRing::load(&["k=".to_string()]).unwrap_err();
        assert!(err.contains("no file"), "{err}");
        assert!(KeyRing::load(&[]).unwrap().keys.is_empty());
    }

    #[test]
    fn manifest_encryption_errors() {
        let ring = KeyRing::load(&[]).unwrap();
        let cases = [
            (json!(null), "no \"dataKey\""),
            (json!({"aad": "AAAA"}), "no \"dataKey\""),
            (json!({"dataKey": 5, "aad": "AAAA"}), "not text"),
            (
                json!({"dataKey": "AAAA", "aad": "AAAA"}),
                "not \"<key pair id>",
            ),
            (
                json!({"dataKey": ":AAAA", "aad": "AAAA"}),
                "not \"<key pair id>",
            ),
            (
                json!({"dataKey": "a:b:AAAA", "aad": "AAAA"}),
                "not \"<key pair id>",
            ),
            (json!({"dataKey": "k:", "aad": "AAAA"}), "wraps nothing"),
            (json!({"dataKey": "k:%%%%", "aad": "AAAA"}), "bad base64"),
            (json!({"dataKey": "k:AAAA"}), "no \"aad\""),
            (json!({"dataKey": "k:AAAA", "aad": "!"}), "bad base64"),
            (
                json!({"dataKey": format!("k:{}", "A".repeat(MAX_BASE64 + 4)), "aad": "AAAA"}),
                "over",
            ),
            (
                json!({"dataKey": "k:AAAA", "aad": "AAAA"}),
                "key pair \"k\"",
            ),
        ];
        for (encryption, expected) in cases {
            let err = ring.data_key(&encryption).unwrap_err();
            assert!(err.contains(expected), "{encryption}: {err}");
        }
    }

    /// The cases Aiven's own code wrote (tests/aiven), unpacked.
    fn aiven_cases() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let packed = std::fs::File::open(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/aiven/aiven-rsm.tar.zst"),
        )
        .unwrap();
        tar::Archive::new(zstd::stream::read::Decoder::new(packed).unwrap())
            .unpack(dir.path())
            .unwrap();
        dir
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn u64_of(v: &Value, name: &str) -> u64 {
        v[name].as_u64().unwrap_or_else(|| panic!("{name} in {v}"))
    }

    /// One object of a segment, by the end of its key.
    fn object(case: &Path, segment: &Value, suffix: &str) -> Vec<u8> {
        let key = segment["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["key"].as_str().unwrap())
            .find(|k| k.ends_with(suffix))
            .unwrap();
        std::fs::read(case.join("storage").join(key)).unwrap()
    }

    /// Every segment of both encrypted configurations decrypts to the
    /// segment Aiven was given: data key and AAD as Aiven's reader unwraps
    /// them, the `.log` chunk by chunk, and every index in `.indexes`.
    #[test]
    fn aiven_encrypted_segments_decrypt_to_their_inputs() {
        let dir = aiven_cases();
        let root = dir.path().join("aiven-rsm");
        let mut segments = 0;
        let mut indexes = 0;
        for name in ["aiven-encrypted", "aiven-zstd-encrypted-prefix"] {
            let case = root.join(name);
            let view: Value =
                serde_json::from_slice(&std::fs::read(case.join("aiven-view.json")).unwrap())
                    .unwrap();
            let key_file = view["config"]["encryption.key.pairs.kseg-lab-key.private.key.file"]
                .as_str()
                .unwrap();
            let ring = KeyRing::load(&[format!("kseg-lab-key={}", case.join(key_file).display())])
                .unwrap();
            for segment in view["segments"].as_array().unwrap() {
                let what = format!("{name} {}", segment["input"]["log"]);
                let manifest_json = object(&case, segment, ".rsm-manifest");
                let manifest: Value = serde_json::from_slice(&manifest_json).unwrap();
                let compression = manifest["compression"].as_bool().unwrap();
                assert_eq!(segment["compression"].as_bool(), Some(compression));

                let data_key = ring.data_key(&manifest["encryption"]).unwrap();
                assert_eq!(
                    hex(&data_key.key),
                    segment["encryption"]["dataKeyHex"].as_str().unwrap(),
                    "{what}"
                );
                assert_eq!(
                    hex(&data_key.aad),
                    segment["encryption"]["aadHex"].as_str().unwrap(),
                    "{what}"
                );
                assert_eq!(u64_of(&segment["encryption"], "ivSize"), IV_SIZE as u64);

                // The .log, chunk by chunk at the places Aiven's chunk index gives.
                let log = object(&case, segment, ".log");
                let chunks = segment["chunks"].as_array().unwrap();
                let parsed = super::super::aiven::Manifest::parse(&manifest_json).unwrap();
                assert_eq!(parsed.chunks().count(), chunks.len(), "{what}");
                let mut restored = Vec::new();
                let mut plain = Vec::new();
                for (chunk, ours) in chunks.iter().zip(parsed.chunks()) {
                    let at = u64_of(chunk, "transformedPosition");
                    let size = u64_of(chunk, "transformedSize");
                    assert_eq!(
                        (at, size),
                        (ours.transformed_position, ours.transformed_size)
                    );
                    let stored = &log[at as usize..(at + size) as usize];
                    data_key.decrypt_chunk(stored, &mut plain).unwrap();
                    let original_size = u64_of(chunk, "originalSize") as usize;
                    if compression {
                        let raw = zstd::bulk::decompress(&plain, original_size).unwrap();
                        assert_eq!(raw.len(), original_size, "{what}");
                        restored.extend_from_slice(&raw);
                    } else {
                        assert_eq!(plain.len(), original_size, "{what}");
                        assert_eq!(stored.len(), original_size + IV_SIZE + TAG_SIZE);
                        restored.extend_from_slice(&plain);
                    }
                }
                let input = &segment["input"];
                let read = |field: &str| -> Vec<u8> {
                    std::fs::read(case.join(input[field].as_str().unwrap())).unwrap()
                };
                assert_eq!(restored, read("log"), "{what}");
                assert_eq!(log.len() as u64, parsed.transformed_size(), "{what}");

                // The indexes, each one encrypted message (none when empty).
                let stored_indexes = object(&case, segment, ".indexes");
                let expected = [
                    ("OFFSET", Some(read("offsetIndex"))),
                    ("TIMESTAMP", Some(read("timeIndex"))),
                    ("PRODUCER_SNAPSHOT", Some(read("producerSnapshot"))),
                    (
                        "LEADER_EPOCH",
                        Some(
                            input["leaderEpochIndexText"]
                                .as_str()
                                .unwrap()
                                .as_bytes()
                                .to_vec(),
                        ),
                    ),
                    (
                        "TRANSACTION",
                        input["transactionIndex"]
                            .as_str()
                            .map(|p| std::fs::read(case.join(p)).unwrap()),
                    ),
                ];
                for (kind, want) in expected {
                    let place = &segment["segmentIndexes"][kind];
                    let Some(want) = want else {
                        assert!(place.is_null(), "{what} {kind}");
                        continue;
                    };
                    let at = u64_of(place, "position") as usize;
                    let size = u64_of(place, "size") as usize;
                    if want.is_empty() {
                        assert_eq!(
                            size, 0,
                            "{what} {kind}: an empty index is stored as nothing"
                        );
                        continue;
                    }
                    assert_eq!(size, want.len() + IV_SIZE + TAG_SIZE, "{what} {kind}");
                    data_key
                        .decrypt_chunk(&stored_indexes[at..at + size], &mut plain)
                        .unwrap();
                    assert_eq!(plain, want, "{what} {kind}");
                    assert_eq!(
                        u64_of(&segment["fetchIndex"][kind], "length") as usize,
                        want.len()
                    );
                    indexes += 1;
                }
                segments += 1;
            }
        }
        assert_eq!(segments, 10);
        // Per segment: offset (but ret-0's, empty), time, producer snapshot,
        // leader epoch; and txn-0's transaction index.
        assert_eq!(indexes, 2 * (5 * 4 - 1 + 1));
    }

    /// A wrong private key, a key for another id, a damaged wrapped key or
    /// a chunk of another segment: each an error saying so.
    #[test]
    fn aiven_wrong_keys_are_refused() {
        let dir = aiven_cases();
        let root = dir.path().join("aiven-rsm");
        let own = root.join("aiven-encrypted/rsa/private.pem");
        let other = root.join("aiven-zstd-encrypted-prefix/rsa/private.pem");
        let view: Value = serde_json::from_slice(
            &std::fs::read(root.join("aiven-encrypted/aiven-view.json")).unwrap(),
        )
        .unwrap();
        let segments = view["segments"].as_array().unwrap();
        let encryption = &segments[0]["manifest"]["encryption"];

        let wrong = KeyRing::load(&[format!("kseg-lab-key={}", other.display())]).unwrap();
        let err = wrong.data_key(encryption).unwrap_err();
        assert!(err.contains("\"kseg-lab-key\""), "{err}");
        assert!(err.contains("no key given unwraps"), "{err}");
        let any_id = KeyRing::load(&[other.display().to_string()]).unwrap();
        let err = any_id.data_key(encryption).unwrap_err();
        assert!(err.contains("\"kseg-lab-key\""), "{err}");

        let elsewhere = KeyRing::load(&[format!("another-id={}", own.display())]).unwrap();
        let err = elsewhere.data_key(encryption).unwrap_err();
        assert!(err.contains("\"kseg-lab-key\""), "{err}");
        assert!(err.contains("only for \"another-id\""), "{err}");

        // The wrong key first, the right one after it: the right one is found.
        let both = KeyRing::load(&[
            format!("kseg-lab-key={}", other.display()),
            own.display().to_string(),
        ])
        .unwrap();
        let key = both.data_key(encryption).unwrap();
        assert_eq!(
            hex(&key.key),
            segments[0]["encryption"]["dataKeyHex"].as_str().unwrap()
        );

        // One bit of the wrapped key flipped.
        let (id, wrapped) = encryption["dataKey"]
            .as_str()
            .unwrap()
            .split_once(':')
            .unwrap();
        let mut wrapped = BASE64.decode(wrapped).unwrap();
        wrapped[100] ^= 0x10;
        let mut damaged = encryption.clone();
        damaged["dataKey"] = Value::String(format!("{id}:{}", BASE64.encode(&wrapped)));
        let err = both.data_key(&damaged).unwrap_err();
        assert!(err.contains("no key given unwraps"), "{err}");
        // Cut short.
        damaged["dataKey"] = Value::String(format!("{id}:{}", BASE64.encode(&wrapped[..100])));
        assert!(both.data_key(&damaged).is_err());

        // A chunk of one segment under another segment's data key and AAD.
        let second = both
            .data_key(&segments[1]["manifest"]["encryption"])
            .unwrap();
        let case = root.join("aiven-encrypted");
        let log = object(&case, &segments[0], ".log");
        let size = u64_of(&segments[0]["chunks"][0], "transformedSize") as usize;
        let mut out = Vec::new();
        key.decrypt_chunk(&log[..size], &mut out).unwrap();
        let err = second.decrypt_chunk(&log[..size], &mut out).unwrap_err();
        assert!(err.contains("tag does not match"), "{err}");
        assert!(out.is_empty());
    }
}
