//! Effective topic configs with their sources: `kseg config`, and the
//! settings lines of the commands that use them.

use std::io::{self, Write};

use crate::inspect::cluster::config::resolve::{IgnoredConfig, TopicConfigs};
use crate::inspect::cluster::config::source::ConfigSource;
use crate::inspect::cluster::metadata::configs::SetBy;

/// How [`write_settings`] shows the configs at Kafka's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defaults {
    /// A line each, like the others.
    Each,
    /// One line naming them.
    Named,
    /// One line counting them.
    Counted,
}

/// Writes `name = value (source)` lines for `names` (all when empty),
/// each prefixed by `indent`, with the defaults shown as `defaults` says.
pub fn write_settings(
    w: &mut dyn Write,
    indent: &str,
    configs: &TopicConfigs,
    names: &[&str],
    defaults: Defaults,
) -> io::Result<()> {
    let mut at_default = Vec::new();
    for (name, r) in configs {
        if !names.is_empty() && !names.contains(&name.as_str()) {
            continue;
        }
        if defaults != Defaults::Each && r.source == ConfigSource::Default {
            at_default.push(name.as_str());
            continue;
        }
        writeln!(w, "{indent}{name} = {} ({})", r.value, r.describe())?;
    }
    match (defaults, at_default.len()) {
        (_, 0) | (Defaults::Each, _) => {}
        (Defaults::Named, _) => writeln!(
            w,
            "{indent}Kafka's defaults (DEFAULT_CONFIG) for {}",
            at_default.join(", ")
        )?,
        (Defaults::Counted, n) => writeln!(
            w,
            "{indent}{n} more at Kafka's defaults (DEFAULT_CONFIG; --all lists them)"
        )?,
    }
    Ok(())
}

/// Writes the dynamic broker configs the broker ignores.
pub fn write_ignored(w: &mut dyn Write, indent: &str, ignored: &[IgnoredConfig]) -> io::Result<()> {
    for i in ignored {
        let at = SetBy::describe_offsets(i.offset, i.snapshot_end_offset);
        writeln!(
            w,
            "{indent}ignored: {}={} ({}{at}): {}",
            i.name,
            i.value,
            i.source.name(),
            i.why
        )?;
    }
    Ok(())
}

/// The JSON object `{"<name>": {"value", "source", …}}` of `configs`,
/// restricted to `names` when not empty.
pub fn configs_json(configs: &TopicConfigs, names: &[&str]) -> serde_json::Value {
    configs
        .iter()
        .filter(|(n, _)| names.is_empty() || names.contains(&n.as_str()))
        .map(|(n, r)| (n.clone(), serde_json::to_value(r).unwrap_or_default()))
        .collect::<serde_json::Map<_, _>>()
        .into()
}
