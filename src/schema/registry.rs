//! The embedded schema files (every `.json` under `schemas/`, listed by
//! `build.rs`), parsed once, and the lookups the record decoders dispatch by.
//! The files under `schemas/<folder>/` are the newest release's; a file
//! under `schemas/variants/<release>/<folder>/` is an older release's layout
//! of a value whose versions Kafka changed in place (a feature changed
//! before it was finished), tried when the newest layout does not fit.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::spec::MessageSpec;

include!(concat!(env!("OUT_DIR"), "/schemas.rs"));

/// One embedded schema file.
#[derive(Debug)]
pub struct SchemaFile {
    /// Its path under `schemas/` (`metadata/ZkMigrationRecord.json`).
    pub path: &'static str,
    /// Its folder under `schemas/` (`group-coordinator`), for a variant the
    /// folder under `variants/<release>/`.
    pub folder: String,
    /// For an older release's layout, that release (`3.7`).
    pub variant: Option<String>,
    /// The parsed schema.
    pub spec: MessageSpec,
}

/// Every embedded schema, parsed.
#[derive(Debug)]
pub struct Registry {
    /// The files, in path order.
    pub files: Vec<SchemaFile>,
    /// Positions in `files`, by folder and schema name.
    by_name: BTreeMap<String, BTreeMap<String, usize>>,
    /// Positions of coordinator key schemas, by folder and record type.
    coordinator_keys: BTreeMap<String, BTreeMap<i16, usize>>,
    /// Positions of coordinator value schemas, by folder and key name: the
    /// newest layout first, then older releases' (newest first).
    coordinator_values: BTreeMap<String, BTreeMap<String, Vec<usize>>>,
    /// [`Registry::coordinator_values`] of each coordinator key schema, by
    /// folder and record type, so that a record's decoder finds its key's
    /// and value's layouts in one lookup by number.
    coordinator_types: BTreeMap<String, BTreeMap<i16, (usize, Vec<usize>)>>,
    /// Positions of record schemas, by folder and `apiKey`, with the name
    /// Kafka's `MetadataRecordType` gives each (`PARTITION_CHANGE_RECORD`).
    api_keys: BTreeMap<String, BTreeMap<i16, (usize, String)>>,
}

/// The embedded files as (path under `schemas/`, JSON text).
pub fn embedded() -> &'static [(&'static str, &'static str)] {
    FILES
}

impl Registry {
    fn load() -> Result<Self, String> {
        let mut files = FILES
            .iter()
            .map(|(path, json)| {
                let spec = MessageSpec::parse(json).map_err(|e| format!("schemas/{path}: {e}"))?;
                let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
                let (variant, folder) = match dir.strip_prefix("variants/") {
                    Some(rest) => {
                        let (release, folder) = rest.split_once('/').unwrap_or((rest, ""));
                        (Some(release.to_string()), folder.to_string())
                    }
                    None => (None, dir.to_string()),
                };
                Ok(SchemaFile {
                    path,
                    folder,
                    variant,
                    spec,
                })
            })
            .collect::<Result<Vec<SchemaFile>, String>>()?;
        // Older layouts, newest release first (by the releases' order).
        let order = |f: &SchemaFile| {
            f.variant.as_deref().map(|r| {
                std::cmp::Reverse(
                    super::releases::releases()
                        .iter()
                        .position(|known| known.release == r)
                        .unwrap_or(0),
                )
            })
        };
        files.sort_by_key(|f| (order(f), f.path));
        let mut by_name: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut coordinator_keys: BTreeMap<String, BTreeMap<i16, usize>> = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.variant.is_some() {
                continue;
            }
            let spec = &file.spec;
            by_name
                .entry(file.folder.clone())
                .or_default()
                .insert(spec.name.clone(), i);
            if let Some((low, high)) = key_record_types(spec) {
                let types = coordinator_keys.entry(file.folder.clone()).or_default();
                for record_type in low..=high {
                    types.entry(record_type).or_insert(i);
                }
            }
        }
        let mut api_keys: BTreeMap<String, BTreeMap<i16, (usize, String)>> = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            if let (None, Some(key)) = (&file.variant, file.spec.api_key) {
                let name = super::spec::record_type_name(&file.spec.name);
                let keys = api_keys.entry(file.folder.clone()).or_default();
                keys.entry(key).or_insert((i, name));
            }
        }
        let mut coordinator_values: BTreeMap<String, BTreeMap<String, Vec<usize>>> =
            BTreeMap::new();
        for file in files.iter().filter(|f| f.variant.is_none()) {
            let Some(stem) = file.spec.name.strip_suffix("Key") else {
                continue;
            };
            // A `Legacy*` key (4.1's name for a record type older releases
            // read with the current key) keeps its value's older versions in
            // the current value's layouts: they follow its own.
            let mut value_names = vec![format!("{stem}Value")];
            if let Some(current) = stem.strip_prefix("Legacy") {
                value_names.push(format!("{current}Value"));
            }
            let layouts: Vec<usize> = value_names
                .iter()
                .flat_map(|name| {
                    files
                        .iter()
                        .enumerate()
                        .filter(move |(_, f)| f.folder == file.folder && &f.spec.name == name)
                        .map(|(i, _)| i)
                })
                .collect();
            if !layouts.is_empty() {
                coordinator_values
                    .entry(file.folder.clone())
                    .or_default()
                    .insert(file.spec.name.clone(), layouts);
            }
        }
        let coordinator_types = coordinator_keys
            .iter()
            .map(|(folder, types)| {
                let values = coordinator_values.get(folder);
                let types = types
                    .iter()
                    .map(|(&t, &key)| {
                        let layouts = files
                            .get(key)
                            .and_then(|f| values?.get(&f.spec.name))
                            .cloned()
                            .unwrap_or_default();
                        (t, (key, layouts))
                    })
                    .collect();
                (folder.clone(), types)
            })
            .collect();
        Ok(Self {
            files,
            by_name,
            coordinator_keys,
            coordinator_values,
            coordinator_types,
            api_keys,
        })
    }

    fn at(&self, i: usize) -> Option<&MessageSpec> {
        self.files.get(i).map(|f| &f.spec)
    }

    /// The schema named `name` in `folder`.
    pub fn by_name(&self, folder: &str, name: &str) -> Option<&MessageSpec> {
        self.at(*self.by_name.get(folder)?.get(name)?)
    }

    /// A coordinator's key schema for record type `record_type`: the `*Key`
    /// schema of `folder` whose valid versions hold it (the key's version is
    /// its record type).
    pub fn coordinator_key(&self, folder: &str, record_type: i16) -> Option<&MessageSpec> {
        self.at(*self.coordinator_keys.get(folder)?.get(&record_type)?)
    }

    /// The value schema that goes with a coordinator key schema
    /// (`OffsetCommitKey` -> `OffsetCommitValue`), the newest release's.
    pub fn coordinator_value(&self, folder: &str, key: &MessageSpec) -> Option<&MessageSpec> {
        self.coordinator_values(folder, key).next()
    }

    /// Every layout of the value that goes with a coordinator key schema:
    /// the newest release's first, then older releases' (newest first).
    pub fn coordinator_values<'r>(
        &'r self,
        folder: &str,
        key: &MessageSpec,
    ) -> impl Iterator<Item = &'r MessageSpec> + use<'r> {
        self.coordinator_values
            .get(folder)
            .and_then(|keys| keys.get(&key.name))
            .into_iter()
            .flatten()
            .filter_map(|&i| self.at(i))
    }

    /// [`Registry::coordinator_key`] for record type `record_type`, with
    /// its value's layouts as [`Registry::coordinator_values`] gives them.
    pub fn coordinator_type(
        &self,
        folder: &str,
        record_type: i16,
    ) -> Option<(
        &MessageSpec,
        impl Iterator<Item = &MessageSpec> + Clone + use<'_>,
    )> {
        let (key, values) = self.coordinator_types.get(folder)?.get(&record_type)?;
        Some((self.at(*key)?, values.iter().filter_map(|&i| self.at(i))))
    }

    /// The record schema of `folder` with this `apiKey`.
    pub fn by_api_key(&self, folder: &str, api_key: i16) -> Option<&MessageSpec> {
        self.record_type(folder, api_key).map(|(spec, _)| spec)
    }

    /// The record schema of `folder` with this `apiKey`, and the record
    /// type's name ([`super::spec::record_type_name`] of the schema's).
    pub fn record_type(&self, folder: &str, api_key: i16) -> Option<(&MessageSpec, &str)> {
        let (i, name) = self.api_keys.get(folder)?.get(&api_key)?;
        Some((self.at(*i)?, name.as_str()))
    }
}

/// The record types a coordinator key schema stands for: its `apiKey`
/// (Kafka 4.1 on, `"type": "coordinator-key"`), or before that its valid
/// versions (the key's version was its record type).
fn key_record_types(spec: &MessageSpec) -> Option<(i16, i16)> {
    if !spec.name.ends_with("Key") {
        return None;
    }
    match (spec.kind.as_str(), spec.api_key) {
        ("coordinator-key", Some(t)) => Some((t, t)),
        ("coordinator-key", None) => None,
        _ => spec.valid_versions.bounds(),
    }
}

/// The version a coordinator key of `record_type` is read at: a
/// `coordinator-key` schema's lowest version, an older key schema's
/// record type.
pub fn key_version(spec: &MessageSpec, record_type: i16) -> i16 {
    match spec.kind.as_str() {
        "coordinator-key" => spec.valid_versions.bounds().map_or(0, |(low, _)| low),
        _ => record_type,
    }
}

/// The registry, parsed on first use; an error names the schema file that
/// did not parse.
pub fn registry() -> Result<&'static Registry, &'static str> {
    static REGISTRY: OnceLock<Result<Registry, String>> = OnceLock::new();
    REGISTRY
        .get_or_init(Registry::load)
        .as_ref()
        .map_err(String::as_str)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_parses() {
        let registry = registry().unwrap();
        assert_eq!(registry.files.len(), embedded().len());
        assert!(registry.files.len() >= 70);
    }

    #[test]
    fn coordinator_record_types_find_their_key_and_value() {
        let r = registry().unwrap();
        let key = r.coordinator_key("group-coordinator", 1).unwrap();
        assert_eq!(key.name, "OffsetCommitKey");
        let value = r.coordinator_value("group-coordinator", key).unwrap();
        assert_eq!(value.name, "OffsetCommitValue");
        // Type 16 (regular expressions) came with 4.0; no release has 18.
        assert_eq!(
            r.coordinator_key("group-coordinator", 16).unwrap().name,
            "ConsumerGroupRegularExpressionKey"
        );
        assert!(r.coordinator_key("group-coordinator", 18).is_none());
        assert_eq!(r.by_api_key("metadata", 2).unwrap().name, "TopicRecord");
    }
}
