//! A schema file read into plain data: the message's versions and its
//! fields with their types, versions, nullable and tagged versions.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// An inclusive version range as the schemas write it (`"0+"`, `"1-3"`,
/// `"2"`, `"none"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    low: i16,
    high: i16,
}

impl Versions {
    /// No version at all.
    pub const NONE: Versions = Versions { low: 0, high: -1 };

    /// Parses `"0+"`, `"1-3"`, `"2"` or `"none"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("bad version range {text:?}");
        let number = |s: &str| s.trim().parse::<i16>().map_err(|_| bad());
        let text = text.trim();
        if text == "none" {
            return Ok(Self::NONE);
        }
        if let Some(low) = text.strip_suffix('+') {
            return Ok(Self {
                low: number(low)?,
                high: i16::MAX,
            });
        }
        match text.split_once('-') {
            Some((low, high)) => Ok(Self {
                low: number(low)?,
                high: number(high)?,
            }),
            None => {
                let v = number(text)?;
                Ok(Self { low: v, high: v })
            }
        }
    }

    /// Whether `version` is in the range.
    pub fn contains(self, version: i16) -> bool {
        self.low <= version && version <= self.high
    }

    /// The lowest and highest version, `None` for an empty range.
    pub fn bounds(self) -> Option<(i16, i16)> {
        (self.low <= self.high).then_some((self.low, self.high))
    }
}

/// A field's wire type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    /// `bool`: one byte, non-zero is true.
    Bool,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `uint16`.
    Uint16,
    /// `int32`.
    Int32,
    /// `uint32`.
    Uint32,
    /// `int64`.
    Int64,
    /// `float64`.
    Float64,
    /// `uuid`: 16 bytes.
    Uuid,
    /// `string`: a length, then UTF-8.
    String,
    /// `bytes`: a length, then bytes.
    Bytes,
    /// `records`: like `bytes`.
    Records,
    /// A struct (the field's own `fields`, or a common struct of this name).
    Struct(String),
    /// `[]T`.
    Array(Box<FieldType>),
}

impl FieldType {
    fn parse(text: &str) -> Self {
        if let Some(element) = text.strip_prefix("[]") {
            return Self::Array(Box::new(Self::parse(element)));
        }
        match text {
            "bool" => Self::Bool,
            "int8" => Self::Int8,
            "int16" => Self::Int16,
            "uint16" => Self::Uint16,
            "int32" => Self::Int32,
            "uint32" => Self::Uint32,
            "int64" => Self::Int64,
            "float64" => Self::Float64,
            "uuid" => Self::Uuid,
            "string" => Self::String,
            "bytes" => Self::Bytes,
            "records" => Self::Records,
            name => Self::Struct(name.to_string()),
        }
    }

    /// The struct this type names, directly or as an array's element.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Self::Struct(name) => Some(name),
            Self::Array(element) => element.struct_name(),
            _ => None,
        }
    }
}

/// One field of a struct.
#[derive(Debug, Clone)]
pub struct Field {
    /// The name as the schema spells it (`TransactionalId`).
    pub name: String,
    /// The name Kafka's JSON converters write (`transactionalId`).
    pub json_name: String,
    /// That name as a JSON member's opening, `"transactionalId":`.
    pub json_label: String,
    /// Its wire type.
    pub ty: FieldType,
    /// Versions the field exists in.
    pub versions: Versions,
    /// Versions in which it may be null.
    pub nullable_versions: Versions,
    /// Versions in which it is a tagged field.
    pub tagged_versions: Versions,
    /// Its tag, for tagged fields.
    pub tag: Option<u32>,
    /// The `default` as written in the schema.
    pub default: Option<Value>,
    /// The fields of an inline struct type (empty otherwise).
    pub fields: Vec<Field>,
}

/// One schema file.
#[derive(Debug, Clone)]
pub struct MessageSpec {
    /// The message name (`OffsetCommitKey`).
    pub name: String,
    /// The schema's `type` (`data`, `metadata`).
    pub kind: String,
    /// The `apiKey` of metadata records.
    pub api_key: Option<i16>,
    /// The versions this message has.
    pub valid_versions: Versions,
    /// The versions that use compact lengths and tagged fields.
    pub flexible_versions: Versions,
    /// The top-level fields.
    pub fields: Vec<Field>,
    /// The `commonStructs`, by name.
    pub common_structs: HashMap<String, Vec<Field>>,
}

fn text<'v>(obj: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    obj.get(key).and_then(Value::as_str)
}

fn versions(obj: &Map<String, Value>, key: &str) -> Result<Option<Versions>, String> {
    text(obj, key).map(Versions::parse).transpose()
}

/// `TransactionalId` -> `transactionalId`, as Kafka's generator does.
fn camel_case(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

fn parse_fields(value: Option<&Value>, at: &str) -> Result<Vec<Field>, String> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let list = value
        .as_array()
        .ok_or_else(|| format!("{at}: fields is not a list"))?;
    list.iter().map(|f| parse_field(f, at)).collect()
}

fn parse_field(value: &Value, at: &str) -> Result<Field, String> {
    let obj = value
        .as_object()
        .ok_or_else(|| format!("{at}: a field is not an object"))?;
    let name = text(obj, "name").ok_or_else(|| format!("{at}: a field has no name"))?;
    let at = format!("{at}.{name}");
    let ty = text(obj, "type").ok_or_else(|| format!("{at}: no type"))?;
    let tagged_versions = versions(obj, "taggedVersions")?.unwrap_or(Versions::NONE);
    // Kafka's generator: a field without versions has its tagged versions.
    let field_versions = match versions(obj, "versions")? {
        Some(v) => v,
        None if tagged_versions.bounds().is_some() => tagged_versions,
        None => return Err(format!("{at}: no versions")),
    };
    let tag = match obj.get("tag") {
        None => None,
        Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Some(Value::String(s)) => s.parse().ok(),
        Some(_) => None,
    };
    if obj.contains_key("tag") && tag.is_none() {
        return Err(format!("{at}: bad tag"));
    }
    // Decoders write field names into JSON unescaped.
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!("{at}: a field name is letters, digits and _"));
    }
    let json_name = camel_case(name);
    Ok(Field {
        name: name.to_string(),
        json_label: format!("\"{json_name}\":"),
        json_name,
        ty: FieldType::parse(ty),
        versions: field_versions,
        nullable_versions: versions(obj, "nullableVersions")?.unwrap_or(Versions::NONE),
        tagged_versions,
        tag,
        default: obj.get("default").cloned(),
        fields: parse_fields(obj.get("fields"), &at)?,
    })
}

impl MessageSpec {
    /// Reads one schema file's JSON.
    pub fn parse(json: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let obj = value.as_object().ok_or("the schema is not an object")?;
        let name = text(obj, "name")
            .ok_or("the schema has no name")?
            .to_string();
        let api_key = match obj.get("apiKey") {
            None => None,
            Some(v) => Some(
                v.as_i64()
                    .and_then(|k| i16::try_from(k).ok())
                    .ok_or_else(|| format!("{name}: bad apiKey"))?,
            ),
        };
        let mut common_structs = HashMap::new();
        for common in obj
            .get("commonStructs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let struct_name = common
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{name}: a common struct has no name"))?;
            let at = format!("{name}.{struct_name}");
            common_structs.insert(
                struct_name.to_string(),
                parse_fields(common.get("fields"), &at)?,
            );
        }
        let spec = Self {
            kind: text(obj, "type").unwrap_or_default().to_string(),
            api_key,
            valid_versions: versions(obj, "validVersions")?
                .ok_or_else(|| format!("{name}: no validVersions"))?,
            flexible_versions: versions(obj, "flexibleVersions")?.unwrap_or(Versions::NONE),
            fields: parse_fields(obj.get("fields"), &name)?,
            common_structs,
            name,
        };
        spec.check_structs(&spec.fields)?;
        for fields in spec.common_structs.values() {
            spec.check_structs(fields)?;
        }
        Ok(spec)
    }

    /// The fields of a struct-typed field: its own, else the common struct's.
    pub fn struct_fields<'s>(&'s self, field: &'s Field) -> Option<&'s [Field]> {
        if !field.fields.is_empty() {
            return Some(&field.fields);
        }
        let name = field.ty.struct_name()?;
        self.common_structs.get(name).map(Vec::as_slice)
    }

    /// Every struct type a field names resolves to fields.
    fn check_structs(&self, fields: &[Field]) -> Result<(), String> {
        for field in fields {
            if let Some(name) = field.ty.struct_name() {
                if self.struct_fields(field).is_none() {
                    return Err(format!(
                        "{}: field {} has unknown type {name}",
                        self.name, field.name
                    ));
                }
            }
            self.check_structs(&field.fields)?;
        }
        Ok(())
    }
}

/// `ZkMigrationStateRecord` -> `ZK_MIGRATION_STATE_RECORD`, the name Kafka's
/// generated `MetadataRecordType` gives a record.
pub fn record_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut previous_upper = true;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if !previous_upper {
                out.push('_');
            }
            previous_upper = true;
        } else {
            previous_upper = false;
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn record_names_become_kafkas_enum_names() {
        assert_eq!(
            record_type_name("ZkMigrationStateRecord"),
            "ZK_MIGRATION_STATE_RECORD"
        );
        assert_eq!(record_type_name("TopicRecord"), "TOPIC_RECORD");
    }

    #[test]
    fn version_ranges_parse_as_the_schemas_write_them() {
        let plus = Versions::parse("3+").unwrap();
        assert!(!plus.contains(2) && plus.contains(3) && plus.contains(i16::MAX));
        let range = Versions::parse("0-1").unwrap();
        assert!(range.contains(0) && range.contains(1) && !range.contains(2));
        let one = Versions::parse("8").unwrap();
        assert!(one.contains(8) && !one.contains(7));
        assert_eq!(Versions::parse("none").unwrap().bounds(), None);
        assert!(Versions::parse("x").is_err());
    }

    #[test]
    fn field_names_become_kafkas_json_names() {
        assert_eq!(camel_case("KRaftVersion"), "kRaftVersion");
        assert_eq!(camel_case("group"), "group");
    }

    #[test]
    fn an_unknown_struct_type_is_refused() {
        let json = r#"{"type":"data","name":"X","validVersions":"0","fields":[{"name":"A","type":"[]Nope","versions":"0+"}]}"#;
        assert!(MessageSpec::parse(json).unwrap_err().contains("Nope"));
    }
}
