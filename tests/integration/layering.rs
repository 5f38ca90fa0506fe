//! The library's layers look only down: format (bytes to values) <- schema
//! (internal topics' records) <- render; format <- logdir
//! (files) <- inspect (Kafka's decisions) <- render and repair; and no two
//! modules of `src/inspect` import each other, directly or around a loop.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::util::repo;

/// Every `.rs` file under `dir`, with its code (comment lines left out:
/// a doc link is not an import).
fn sources(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.push((path.clone(), code.join("\n")));
        }
    }
    out
}

/// The names following `prefix` in `text` (`crate::inspect::recovery` -> `recovery`).
fn names_after<'t>(text: &'t str, prefix: &str) -> BTreeSet<&'t str> {
    text.match_indices(prefix)
        .map(|(at, _)| {
            let rest = &text[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn each_layer_imports_only_the_layers_below_it() {
    let allowed: [(&str, &[&str]); 6] = [
        ("format", &[]),
        ("schema", &["format"]),
        ("logdir", &["format"]),
        ("inspect", &["format", "logdir"]),
        ("render", &["format", "logdir", "inspect", "schema"]),
        ("repair", &["format", "logdir", "inspect"]),
    ];
    for (layer, below) in allowed {
        for (path, text) in sources(&repo().join("src").join(layer)) {
            for used in names_after(&text, "crate::") {
                assert!(
                    used == layer || below.contains(&used),
                    "{} ({layer}) imports crate::{used}",
                    path.display()
                );
            }
        }
    }
}

/// The inspect module a file belongs to (`inspect/locate/segment.rs` -> `locate`).
fn module_of(path: &Path, root: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap();
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

#[test]
fn no_import_loop_inside_inspect() {
    let root = repo().join("src/inspect");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in sources(&root) {
        let module = module_of(&path, &root);
        if module == "mod" {
            continue;
        }
        // `super::` in a file of a directory module names its siblings.
        let nested = path.parent() != Some(root.as_path());
        let mut uses: BTreeSet<&str> = names_after(&text, "crate::inspect::");
        if !nested {
            uses.extend(names_after(&text, "super::"));
        }
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(
            uses.into_iter()
                .filter(|m| *m != module && *m != "tests")
                .map(str::to_string),
        );
    }
    assert!(graph.len() > 10, "read {} inspect modules", graph.len());
    // Depth-first search for a back edge.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(at) = path.iter().position(|n| n == node) {
            panic!("import loop in src/inspect: {:?} -> {node}", &path[at..]);
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(node.to_string());
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}
