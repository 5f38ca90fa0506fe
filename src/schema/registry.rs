//! The embedded schema files (every `.json` under `schemas/`, listed by
//! `build.rs`), parsed once, and the lookups the record decoders dispatch by.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::spec::MessageSpec;

include!(concat!(env!("OUT_DIR"), "/schemas.rs"));

/// One embedded schema file.
#[derive(Debug)]
pub struct SchemaFile {
    /// Its path under `schemas/` (`metadata/ZkMigrationRecord.json`).
    pub path: &'static str,
    /// Its folder under `schemas/` (`group-coordinator`).
    pub folder: String,
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
    /// Positions of coordinator value schemas, by folder and key name.
    coordinator_values: BTreeMap<String, BTreeMap<String, usize>>,
}

/// The embedded files as (path under `schemas/`, JSON text).
pub fn embedded() -> &'static [(&'static str, &'static str)] {
    FILES
}

impl Registry {
    fn load() -> Result<Self, String> {
        let files = FILES
            .iter()
            .map(|(path, json)| {
                let spec = MessageSpec::parse(json).map_err(|e| format!("schemas/{path}: {e}"))?;
                let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
                Ok(SchemaFile { path, folder, spec })
            })
            .collect::<Result<Vec<SchemaFile>, String>>()?;
        let mut by_name: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut coordinator_keys: BTreeMap<String, BTreeMap<i16, usize>> = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            let spec = &file.spec;
            by_name
                .entry(file.folder.clone())
                .or_default()
                .insert(spec.name.clone(), i);
            if let (true, Some((low, high))) =
                (spec.name.ends_with("Key"), spec.valid_versions.bounds())
            {
                let types = coordinator_keys.entry(file.folder.clone()).or_default();
                for record_type in low..=high {
                    types.entry(record_type).or_insert(i);
                }
            }
        }
        let mut coordinator_values: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        for file in &files {
            let Some(stem) = file.spec.name.strip_suffix("Key") else {
                continue;
            };
            let value = by_name
                .get(&file.folder)
                .and_then(|names| names.get(&format!("{stem}Value")));
            if let Some(&value) = value {
                coordinator_values
                    .entry(file.folder.clone())
                    .or_default()
                    .insert(file.spec.name.clone(), value);
            }
        }
        Ok(Self {
            files,
            by_name,
            coordinator_keys,
            coordinator_values,
        })
    }

    fn at(&self, i: usize) -> Option<&MessageSpec> {
        self.files.get(i).map(|f| &f.spec)
    }

    fn in_folder<'r, 'f>(
        &'r self,
        folder: &'f str,
    ) -> impl Iterator<Item = &'r MessageSpec> + use<'r, 'f> {
        self.files
            .iter()
            .filter(move |f| f.folder == folder)
            .map(|f| &f.spec)
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
    /// (`OffsetCommitKey` -> `OffsetCommitValue`).
    pub fn coordinator_value(&self, folder: &str, key: &MessageSpec) -> Option<&MessageSpec> {
        self.at(*self.coordinator_values.get(folder)?.get(&key.name)?)
    }

    /// The record schema of `folder` with this `apiKey`.
    pub fn by_api_key(&self, folder: &str, api_key: i16) -> Option<&MessageSpec> {
        self.in_folder(folder).find(|s| s.api_key == Some(api_key))
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
        assert!(r.coordinator_key("group-coordinator", 16).is_none());
        assert_eq!(r.by_api_key("metadata", 2).unwrap().name, "TopicRecord");
    }
}
