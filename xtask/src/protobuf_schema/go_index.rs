//! The Go facts of every package read, by import path: for each struct, what the field tagged
//! with each protobuf number looks like in Go and in JSON.

use std::collections::{BTreeMap, btree_map::Entry};
use std::path::{Path, PathBuf};

use super::error::Error;
use super::go_source::GoFile;
use super::tags;

/// What the Go field behind one protobuf field says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GoFacts {
    /// The JSON name from the tag; empty when the tag gives none.
    pub(crate) json_name: String,
    /// The Go type is a pointer.
    pub(crate) pointer: bool,
    /// The JSON tag has `omitempty`.
    pub(crate) omitempty: bool,
    /// An embedded struct without a JSON name: encoding/json inlines its fields.
    pub(crate) inline: bool,
    /// The protobuf tag's `name=`, if it has one.
    pub(crate) proto_name: Option<String>,
    /// Where the field is, for messages about it.
    pub(crate) at: String,
}

/// One Go package's structs and named types.
#[derive(Debug, Default)]
pub(crate) struct GoPackage {
    /// Struct name to its tagged fields by protobuf number.
    structs: BTreeMap<String, BTreeMap<u32, GoFacts>>,
    /// Named types that stand for another: name to (import path, type name).
    named: BTreeMap<String, (String, String)>,
}

/// Every package read, by import path.
#[derive(Debug, Default)]
pub(crate) struct GoIndex {
    packages: BTreeMap<String, GoPackage>,
    /// Things worth a warning found while indexing (a protobuf number used twice in a struct).
    pub(crate) warnings: Vec<String>,
}

impl GoIndex {
    /// Adds the files of the package at `import_path`.
    pub(crate) fn add(
        &mut self,
        import_path: &str,
        files: &[(PathBuf, GoFile)],
    ) -> Result<(), Error> {
        let mut package = GoPackage::default();
        for (path, file) in files {
            for go_struct in &file.structs {
                let facts = match package.structs.entry(go_struct.name.clone()) {
                    Entry::Vacant(entry) => entry.insert(BTreeMap::new()),
                    Entry::Occupied(_) => {
                        self.warnings.push(format!(
                            "{}: struct {} declared twice in {import_path}; the first is used",
                            path.display(),
                            go_struct.name
                        ));
                        continue;
                    }
                };
                for field in &go_struct.fields {
                    let Some(tag) = &field.tag else { continue };
                    let tag = tags::parse(tag).map_err(|reason| Error::Go {
                        file: path.clone(),
                        line: field.line,
                        reason,
                    })?;
                    let Some(number) = tag.number else { continue };
                    let at = format!("{}:{}", path.display(), field.line);
                    let embedded = field.names.is_empty();
                    let new = GoFacts {
                        inline: embedded && tag.json_name.is_empty(),
                        json_name: tag.json_name,
                        pointer: field.pointer,
                        omitempty: tag.omitempty,
                        proto_name: tag.proto_name,
                        at,
                    };
                    if let Some(old) = facts.get(&number) {
                        self.warnings.push(format!(
                            "{}: protobuf number {number} of {} already tagged at {}",
                            new.at, go_struct.name, old.at
                        ));
                        continue;
                    }
                    facts.insert(number, new);
                }
            }
            for (name, import, target) in &file.named {
                let target_path = match import {
                    None => import_path.to_owned(),
                    Some(import) => match file.imports.get(import) {
                        Some(path) => path.clone(),
                        None => continue,
                    },
                };
                package
                    .named
                    .insert(name.clone(), (target_path, target.clone()));
            }
        }
        self.packages.insert(import_path.to_owned(), package);
        Ok(())
    }

    /// The tagged fields of the struct `name` in the package `import_path`, following named
    /// types (`type A = other.A`, `type B A`) to the struct they stand for.
    pub(crate) fn struct_facts(
        &self,
        import_path: &str,
        name: &str,
    ) -> Option<&BTreeMap<u32, GoFacts>> {
        let (mut path, mut name) = (import_path, name);
        // A chain of named types longer than this is a cycle.
        for _ in 0..8 {
            let package = self.packages.get(path)?;
            if let Some(facts) = package.structs.get(name) {
                return Some(facts);
            }
            let (next_path, next_name) = package.named.get(name)?;
            (path, name) = (next_path, next_name);
        }
        None
    }
}

/// The Go files of the package in `dir`: every `.go` file but tests and generated code.
pub(crate) fn go_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let wanted = name.ends_with(".go")
            && !name.ends_with("_test.go")
            && name != "generated.pb.go"
            && !name.starts_with("zz_generated");
        if wanted && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}
