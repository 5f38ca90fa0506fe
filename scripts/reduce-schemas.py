#!/usr/bin/env python3
"""Reduces Apache Kafka's message schema files to the plain JSON kept in
schemas/ (see schemas/README.md), and builds schemas/releases.json.

    reduce-schemas.py reduce GIT_DIR REV OUT
        Writes the reduced schemas of one Kafka source commit into OUT
        (OUT/<folder>/<Name>.json, the folders of schemas/README.md).

    reduce-schemas.py build [SCHEMAS]
        For every release in RELEASES: reduces its schemas (to a temporary
        directory), writes SCHEMAS/releases.json (each release's source and,
        per schema file, its validVersions and flexibleVersions), and
        replaces SCHEMAS/<folder>/ with the files of the newest release,
        plus each file a newer release dropped, from the newest release that
        had it. SCHEMAS defaults to the schemas/ folder beside this script.

A reduced file is the schema re-serialized as JSON (two-space indent, keys
in their order, a final newline) without the license header, the `//`
comments and the `about` texts. Python 3 standard library only.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

# (schemas/ folder, folder in apache/kafka, file names or None for all).
# Older releases keep the transaction log's schemas under core/.
SOURCES = [
    ("group-coordinator", ["group-coordinator/src/main/resources/common/message"], None),
    (
        "transaction-coordinator",
        [
            "transaction-coordinator/src/main/resources/common/message",
            "core/src/main/resources/common/message",
        ],
        ["TransactionLogKey", "TransactionLogValue"],
    ),
    ("share-coordinator", ["share-coordinator/src/main/resources/common/message"], None),
    ("metadata", ["metadata/src/main/resources/common/metadata"], None),
    (
        "clients",
        ["clients/src/main/resources/common/message"],
        [
            "ConsumerProtocolAssignment",
            "ConsumerProtocolSubscription",
            "KRaftVersionRecord",
            "LeaderChangeMessage",
            "SnapshotFooterRecord",
            "SnapshotHeaderRecord",
            "VotersRecord",
        ],
    ),
    # kseg reads producer snapshots with its own parser.
    ("storage", ["storage/src/main/resources/message"], None, ["ProducerSnapshot"]),
]

MIRRORS = "/work/.mirror"

# (release, repository the commit was read from, commit, what the commit is).
# A fork's commit at an Apache release is Apache's own commit (same hash).
RELEASES = [
    ("3.6", "apache/kafka", "c4deed513057c94eb502e64490d6bdc23551d8b6", "tag 3.6.2"),
    ("3.7", "aiven/inkless", "79a8f2b5f44f9d5a6867190d1dfc463d08d60b82", "tag 3.7.2"),
    ("3.8", "aiven/inkless", "70d6ff42debf7e17478beb899fb5756bfbdbfbb5", "tag 3.8.1"),
    ("3.9", "aiven/inkless", "f745dfdcee2b9851204ddbbcd423626ab87294bc", "tag 3.9.1"),
    (
        "trunk-1eb7644",
        "apache/kafka",
        "1eb7644349cb07139d6a3c1ad1986979647cac99",
        "trunk 2024-10-25, the writer of tests/corpus",
    ),
    ("4.0", "aiven/inkless", "b31ce61fd68c51d1b9b964b09874148f14b75964", "tag 4.0.1"),
    ("4.1", "aiven/inkless", "be816b82d25370ceac697ccf7c88cea873e9b4e3", "tag 4.1.1"),
    (
        "4.2",
        "aiven/inkless",
        "18d5ecd939c8d510fdd72d0abb1f7099659dcd58",
        "4.2.1 (\"Bump version to 4.2.1\", merged by inkless as upstream 4.2.1)",
    ),
    (
        "trunk",
        "aiven/inkless",
        "8b119e5105906a66cc99264527670c88b07c7a10",
        "apache trunk 2025-11-21 (before 4.3.0-SNAPSHOT), merged by inkless",
    ),
]


def strip_comments(text):
    """The text without `//` comments (outside strings)."""
    out = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def without_about(value):
    """The JSON value with every `about` member removed."""
    if isinstance(value, dict):
        return {k: without_about(v) for k, v in value.items() if k != "about"}
    if isinstance(value, list):
        return [without_about(v) for v in value]
    return value


def reduce_text(text):
    """One schema file's text, reduced."""
    return json.dumps(without_about(json.loads(strip_comments(text))), indent=2) + "\n"


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout.decode()


def exists(git_dir, object_name):
    """Whether the commit has this path."""
    return (
        subprocess.run(
            ["git", "--git-dir", git_dir, "cat-file", "-e", object_name],
            capture_output=True,
        ).returncode
        == 0
    )


def reduce_commit(git_dir, rev, out):
    """Writes the reduced schemas of `rev` into `out`; returns their paths."""
    written = []
    for source in SOURCES:
        folder, paths, only = source[0], source[1], source[2]
        skip = source[3] if len(source) > 3 else []
        for path in paths:
            if not exists(git_dir, f"{rev}:{path}"):
                continue
            names = git(git_dir, "ls-tree", "--name-only", f"{rev}:{path}").split()
            names = [n[:-5] for n in names if n.endswith(".json")]
            if only is not None:
                names = [n for n in names if n in only]
            names = [n for n in names if n not in skip]
            if not names:
                continue
            os.makedirs(os.path.join(out, folder), exist_ok=True)
            for name in sorted(names):
                text = git(git_dir, "show", f"{rev}:{path}/{name}.json")
                target = os.path.join(out, folder, name + ".json")
                with open(target, "w", encoding="utf-8") as f:
                    f.write(reduce_text(text))
                written.append(f"{folder}/{name}.json")
            break
    return sorted(written)


def git_dir_of(repo):
    return os.path.join(MIRRORS, repo.replace("/", "+"), "repo")


def version_range(text):
    """(low, high) of a version range (`0+`, `1-3`, `2`, `none`)."""
    text = (text or "none").strip()
    if text == "none":
        return (0, -1)
    if text.endswith("+"):
        return (int(text[:-1]), 32767)
    if "-" in text:
        low, high = text.split("-")
        return (int(low), int(high))
    return (int(text), int(text))


def has_version(text, version):
    low, high = version_range(text)
    return low <= version <= high


def layout(spec, version):
    """What decoding a message at `version` reads: the fields present, with
    their types and nullability, nested structs expanded; tagged fields are
    left out (a record without them decodes the same either way)."""
    common = {c["name"]: c["fields"] for c in spec.get("commonStructs", [])}
    flexible = has_version(spec.get("flexibleVersions"), version)

    def fields(of):
        out = []
        for f in of:
            if not has_version(f.get("versions", f.get("taggedVersions")), version):
                continue
            if flexible and has_version(f.get("taggedVersions"), version):
                continue
            element = f["type"][2:] if f["type"].startswith("[]") else f["type"]
            sub = f.get("fields") or common.get(element)
            nullable = has_version(f.get("nullableVersions"), version)
            out.append((f["name"], f["type"] if sub is None else "", nullable,
                        fields(sub) if sub else None))
        return out

    return (flexible, fields(spec["fields"]))


def versions_of(spec):
    """The versions a message is decoded at (a coordinator key of the new
    form at its own versions, an old one at its record types)."""
    low, high = version_range(spec["validVersions"])
    return range(low, high + 1)


def key_version(spec, record_type):
    if spec.get("type") == "coordinator-key":
        return version_range(spec["validVersions"])[0]
    return record_type


def same_layout(old, new):
    """Whether every version of `old` decodes as `new` decodes it."""
    key = old["name"].endswith("Key") and (
        "apiKey" in new and new.get("type") == "coordinator-key"
    )
    for v in versions_of(old):
        if key:
            if layout(old, key_version(old, v)) != layout(new, key_version(new, v)):
                return False
        elif not has_version(new["validVersions"], v) or layout(old, v) != layout(new, v):
            return False
    return True


def entry_of(spec):
    entry = {"validVersions": spec["validVersions"]}
    for member in ("flexibleVersions", "apiKey"):
        if member in spec:
            entry[member] = spec[member]
    if spec.get("type") in ("coordinator-key", "coordinator-value"):
        entry["type"] = spec["type"]
    return entry


def build(schemas):
    table = {"releases": []}
    newest = {}
    specs = []
    with tempfile.TemporaryDirectory() as tmp:
        for release, repo, commit, what in RELEASES:
            out = os.path.join(tmp, release)
            files = {}
            for path in reduce_commit(git_dir_of(repo), commit, out):
                with open(os.path.join(out, path), encoding="utf-8") as f:
                    spec = json.load(f)
                files[path] = entry_of(spec)
                newest[path] = os.path.join(out, path)
                specs.append((release, path, os.path.join(out, path), spec))
            table["releases"].append(
                {"release": release, "repository": repo, "commit": commit,
                 "source": what, "files": files}
            )
        for source in SOURCES:
            shutil.rmtree(os.path.join(schemas, source[0]), ignore_errors=True)
        shutil.rmtree(os.path.join(schemas, "variants"), ignore_errors=True)
        for path, origin in sorted(newest.items()):
            os.makedirs(os.path.dirname(os.path.join(schemas, path)), exist_ok=True)
            shutil.copyfile(origin, os.path.join(schemas, path))
        # A file whose older releases lay out a version differently (a
        # feature changed before it was finished) keeps each older layout,
        # from the newest release that had it, under variants/<release>/.
        variants = {}
        for release, path, origin, spec in specs:
            with open(newest[path], encoding="utf-8") as f:
                current = json.load(f)
            if same_layout(spec, current):
                continue
            kept = variants.setdefault(path, [])
            if kept and same_layout(spec, kept[-1][2]) and same_layout(kept[-1][2], spec):
                kept[-1] = (release, origin, spec)
            else:
                kept.append((release, origin, spec))
        for path, kept in sorted(variants.items()):
            for release, origin, _ in kept:
                target = os.path.join(schemas, "variants", release, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(origin, target)
    with open(os.path.join(schemas, "releases.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(table, indent=1) + "\n")


def main(argv):
    if len(argv) == 4 and argv[0] == "reduce":
        reduce_commit(*argv[1:])
    elif len(argv) in (1, 2) and argv[0] == "build":
        here = os.path.dirname(os.path.abspath(__file__))
        build(argv[1] if len(argv) == 2 else os.path.join(here, "..", "schemas"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
