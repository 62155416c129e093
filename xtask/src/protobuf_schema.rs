//! `cargo xtask protobuf-schema --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR
//! [--out FILE] [--revision [SOURCE=]NAME]...`: writes the schema `kinformer-protobuf` reads at
//! run time, from work trees of kubernetes/api, kubernetes/apimachinery,
//! kubernetes/apiextensions-apiserver and kubernetes/kube-aggregator.
//!
//! The messages and field types come from each package's `generated.proto`; what the proto does
//! not say (the JSON name, whether the Go field is a pointer, whether its JSON tag has
//! `omitempty`) comes from the Go structs the proto was generated from, joined by struct name and
//! protobuf field number; the apiVersion from the package's `register.go`.
//!
//! The format, one item a line: `#` header lines naming the sources, then `package <proto
//! package> <apiVersion or ->`, `message <Name>[ wrapper]` and `<number> <jsonName> <type>
//! [repeated] [ptr] [omitempty]`, each sorted (packages and messages by name, fields by number).
//!
//! Not expressible in the format, so listed on stderr instead: a field whose Go side is an
//! embedded struct without a JSON name (`VolumeSource` in `Volume`) has its fields inlined into
//! the parent's JSON object; it is written under its proto name.

use std::path::{Path, PathBuf};
use std::process::Command;

mod build_constraint;
mod error;
mod go_index;
mod go_source;
mod go_tokens;
mod proto;
mod schema;
mod tags;

use error::Error;
use go_index::GoIndex;
use schema::Input;

/// One Kubernetes repository read.
struct Source {
    /// The option naming its directory, and the key of `--revision KEY=NAME`.
    key: &'static str,
    /// The repository, as the header names it.
    repository: &'static str,
    /// Where its packages are: `None` for the whole tree, or these directories.
    dirs: Option<&'static [&'static str]>,
}

const SOURCES: [Source; 4] = [
    Source {
        key: "api",
        repository: "kubernetes/api",
        dirs: None,
    },
    Source {
        key: "apimachinery",
        repository: "kubernetes/apimachinery",
        dirs: Some(&[
            "pkg/apis/meta/v1",
            "pkg/apis/meta/v1beta1",
            "pkg/api/resource",
            "pkg/util/intstr",
            "pkg/runtime",
            "pkg/runtime/schema",
        ]),
    },
    Source {
        key: "apiextensions",
        repository: "kubernetes/apiextensions-apiserver",
        dirs: Some(&[
            "pkg/apis/apiextensions/v1",
            "pkg/apis/apiextensions/v1beta1",
        ]),
    },
    Source {
        key: "aggregator",
        repository: "kubernetes/kube-aggregator",
        dirs: Some(&[
            "pkg/apis/apiregistration/v1",
            "pkg/apis/apiregistration/v1beta1",
        ]),
    },
];

/// The command line's shape, for usage errors.
const USAGE: &str = "usage: cargo xtask protobuf-schema --api DIR --apimachinery DIR --apiextensions DIR \
    --aggregator DIR [--out FILE] [--revision NAME | --revision SOURCE=NAME]...";

/// Directory names never searched for packages: test fixtures, vendored code, hidden dirs.
const SKIPPED_DIRS: &[&str] = &["testing", "test", "testdata", "vendor"];

/// The command line, read.
struct Options {
    /// Each source's directory, in [`SOURCES`] order.
    dirs: Vec<PathBuf>,
    /// Each source's revision when given, in [`SOURCES`] order.
    revisions: Vec<Option<String>>,
    out: PathBuf,
}

/// Runs the command.
pub(crate) fn run(args: &[String], root: &Path) -> Result<(), String> {
    let options = options(args, root).map_err(|e| format!("{e}\n{USAGE}"))?;
    generate(&options).map_err(|e| e.to_string())
}

fn options(args: &[String], root: &Path) -> Result<Options, Error> {
    let mut dirs = vec![None; SOURCES.len()];
    let mut revisions = vec![None; SOURCES.len()];
    let mut out = root.join("crates/kinformer-protobuf/schema/kubernetes.schema");
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let Some(value) = it.next() else {
            return Err(Error::Usage(format!("{flag} needs a value")));
        };
        let name = flag.strip_prefix("--").unwrap_or(flag);
        if let Some(index) = SOURCES.iter().position(|s| s.key == name) {
            dirs[index] = Some(PathBuf::from(value));
        } else if name == "out" {
            out = PathBuf::from(value);
        } else if name == "revision" {
            let keyed = value.split_once('=').and_then(|(key, revision)| {
                Some((SOURCES.iter().position(|s| s.key == key)?, revision))
            });
            match keyed {
                Some((index, revision)) => revisions[index] = Some(revision.to_owned()),
                None => revisions.iter_mut().for_each(|r| *r = Some(value.clone())),
            }
        } else {
            return Err(Error::Usage(format!("unknown option {flag:?}")));
        }
    }
    let dirs = dirs
        .into_iter()
        .zip(&SOURCES)
        .map(|(dir, source)| {
            dir.ok_or_else(|| Error::Usage(format!("--{} DIR is required", source.key)))
        })
        .collect::<Result<_, _>>()?;
    Ok(Options {
        dirs,
        revisions,
        out,
    })
}

fn generate(options: &Options) -> Result<(), Error> {
    let mut inputs = Vec::new();
    let mut go = GoIndex::default();
    let mut headers = Vec::new();
    for ((source, dir), revision) in SOURCES.iter().zip(&options.dirs).zip(&options.revisions) {
        let package_dirs = package_dirs(source, dir)?;
        if package_dirs.is_empty() {
            return Err(Error::NoProtos {
                source: source.repository,
                dir: dir.clone(),
            });
        }
        for package_dir in package_dirs {
            let (input, go_files) = read_package(&package_dir)?;
            go.add(&input.go_path, &go_files)?;
            inputs.push(input);
        }
        let revision = revision.clone().or_else(|| git_head(dir));
        headers.push(format!(
            "kinformer protobuf schema: generated by `cargo xtask protobuf-schema` from {} {}",
            source.repository,
            revision.as_deref().unwrap_or("unknown")
        ));
    }
    let (packages, findings) = schema::build(&inputs, &go)?;
    let text = schema::render(&headers, &packages);
    if let Some(parent) = options.out.parent() {
        std::fs::create_dir_all(parent).map_err(|source| Error::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(&options.out, &text).map_err(|source| Error::Io {
        path: options.out.clone(),
        source,
    })?;

    for warning in &go.warnings {
        eprintln!("protobuf-schema: warning: {warning}");
    }
    let lists = [
        (
            "not joined to a Go field (no ptr/omitempty)",
            &findings.unjoined,
        ),
        ("Go tag names another proto field", &findings.mismatched),
        (
            "inlined in JSON (embedded Go struct without a JSON name)",
            &findings.inline,
        ),
        ("JSON name differs from the proto name", &findings.renamed),
        (
            "packages without messages, left out",
            &findings.empty_packages,
        ),
    ];
    for (what, list) in lists {
        for item in list {
            eprintln!("protobuf-schema: {what}: {item}");
        }
    }
    let messages: usize = packages.iter().map(|p| p.messages.len()).sum();
    let fields: usize = packages
        .iter()
        .flat_map(|p| p.messages.values())
        .map(|m| m.fields.len())
        .sum();
    eprintln!(
        "protobuf-schema: {} packages, {messages} messages, {fields} fields; {} unjoined, {} mismatched, {} inline, {} renamed",
        packages.len(),
        findings.unjoined.len(),
        findings.mismatched.len(),
        findings.inline.len(),
        findings.renamed.len(),
    );
    eprintln!(
        "protobuf-schema: wrote {} ({} bytes, {} lines)",
        options.out.display(),
        text.len(),
        text.lines().count()
    );
    Ok(())
}

/// The directories of `source` under `dir` holding a `generated.proto`, sorted.
fn package_dirs(source: &Source, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    match source.dirs {
        Some(dirs) => {
            for sub in dirs {
                let package = dir.join(sub);
                if package.join("generated.proto").is_file() {
                    found.push(package);
                }
            }
        }
        None => walk(dir, &mut found)?,
    }
    found.sort();
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    if dir.join("generated.proto").is_file() {
        found.push(dir.to_path_buf());
    }
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let skipped = name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_str());
        if !skipped && entry.file_type().map_err(io)?.is_dir() {
            walk(&entry.path(), found)?;
        }
    }
    Ok(())
}

/// Reads the proto and Go files of one package directory.
fn read_package(dir: &Path) -> Result<(Input, Vec<(PathBuf, go_source::GoFile)>), Error> {
    let proto_path = dir.join("generated.proto");
    let proto = proto::parse(&proto_path, &read(&proto_path)?)?;
    let mut go_files = Vec::new();
    let mut group = None;
    for path in go_index::go_files(dir)? {
        let text = read(&path)?;
        let go_error = |(line, reason)| Error::Go {
            file: path.clone(),
            line,
            reason,
        };
        if !build_constraint::in_default_build(&text).map_err(go_error)? {
            continue;
        }
        let file = go_source::parse(&text).map_err(go_error)?;
        if path.file_name().is_some_and(|n| n == "register.go") {
            group.clone_from(&file.group_name);
        }
        go_files.push((path, file));
    }
    let version = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let api_version = match group.as_deref() {
        None => "-".to_owned(),
        Some("") => version,
        Some(group) => format!("{group}/{version}"),
    };
    // Without go_package, the directory stands in: only a named type elsewhere pointing at
    // this package would need its import path.
    let go_path = proto
        .go_package
        .clone()
        .unwrap_or_else(|| dir.display().to_string());
    Ok((
        Input {
            proto,
            api_version,
            go_path,
        },
        go_files,
    ))
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The commit checked out in `dir`, when `dir` is the top of a git work tree.
fn git_head(dir: &Path) -> Option<String> {
    if !dir.join(".git").exists() {
        return None;
    }
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()?;
    let head = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !head.trim().is_empty()).then(|| head.trim().to_owned())
}

#[cfg(test)]
#[path = "protobuf_schema/options_tests.rs"]
mod tests;
