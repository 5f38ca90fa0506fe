//! The embedded schema files (every `.json` under `schemas/`, listed by
//! `build.rs`), parsed once, and the lookups the record decoders dispatch by.

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
            .collect::<Result<_, String>>()?;
        Ok(Self { files })
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
        self.in_folder(folder).find(|s| s.name == name)
    }

    /// A coordinator's key schema for record type `record_type`: the `*Key`
    /// schema of `folder` whose valid versions hold it (the key's version is
    /// its record type).
    pub fn coordinator_key(&self, folder: &str, record_type: i16) -> Option<&MessageSpec> {
        self.in_folder(folder)
            .find(|s| s.name.ends_with("Key") && s.valid_versions.contains(record_type))
    }

    /// The value schema that goes with a coordinator key schema
    /// (`OffsetCommitKey` -> `OffsetCommitValue`).
    pub fn coordinator_value(&self, folder: &str, key: &MessageSpec) -> Option<&MessageSpec> {
        let stem = key.name.strip_suffix("Key")?;
        self.by_name(folder, &format!("{stem}Value"))
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
