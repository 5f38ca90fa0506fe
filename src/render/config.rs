//! Effective topic configs with their sources: `kseg config`, and the
//! settings lines of the commands that use them.

use std::io::{self, Write};

use crate::inspect::cluster::config::resolve::{IgnoredConfig, TopicConfigs};
use crate::inspect::cluster::config::source::ConfigSource;

/// Writes `name = value (source)` lines for `names` (all when empty),
/// each prefixed by `indent`; with `skip_defaults`, Kafka's defaults are
/// summed up in one line instead.
pub fn write_settings(
    w: &mut dyn Write,
    indent: &str,
    configs: &TopicConfigs,
    names: &[&str],
    skip_defaults: bool,
) -> io::Result<()> {
    let mut defaults = Vec::new();
    for (name, r) in configs {
        if !names.is_empty() && !names.contains(&name.as_str()) {
            continue;
        }
        if skip_defaults && r.source == ConfigSource::Default {
            defaults.push(name.as_str());
            continue;
        }
        writeln!(w, "{indent}{name} = {} ({})", r.value, r.describe())?;
    }
    if !defaults.is_empty() {
        writeln!(
            w,
            "{indent}Kafka's defaults (DEFAULT_CONFIG) for {}",
            defaults.join(", ")
        )?;
    }
    Ok(())
}

/// Writes the dynamic broker configs the broker ignores.
pub fn write_ignored(w: &mut dyn Write, indent: &str, ignored: &[IgnoredConfig]) -> io::Result<()> {
    for i in ignored {
        let at = i
            .offset
            .map_or(String::new(), |o| format!(" at offset {o}"));
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
