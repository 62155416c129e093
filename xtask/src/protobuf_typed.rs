//! `cargo xtask protobuf-typed`: generates the protobuf crate's typed decoders and encoders, one
//! file per API package, from its schema (`schema/kubernetes.schema`) and k8s-openapi's source
//! for the version the schema was made for. Each k8s-openapi struct with a message of the same
//! name gets a `merge_field` that routes field numbers to its Rust fields and an `encode_fields`
//! that writes them back in number order; a field whose Rust type does not hold what the message
//! says (checked on the type text) goes through the serde path or, for a scalar, is reported and
//! left out.

mod emit;
mod emit_encode;
mod openapi;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One message of the schema text.
pub(crate) struct Message {
    /// `k8s.io.api.core.v1`.
    pub(crate) package: String,
    /// `Pod`.
    pub(crate) name: String,
    pub(crate) wrapper: bool,
    pub(crate) fields: Vec<Field>,
}

/// One field line: `<number> <jsonName> <type> [flags]`.
pub(crate) struct Field {
    pub(crate) number: u32,
    pub(crate) json: String,
    pub(crate) ty: String,
    pub(crate) repeated: bool,
    pub(crate) pointer: bool,
    pub(crate) omitempty: bool,
    pub(crate) inline: bool,
}

fn parse_schema(text: &str) -> Result<Vec<Message>, String> {
    let mut out: Vec<Message> = Vec::new();
    let mut package = String::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [first, ..] if first.starts_with('#') => {}
            ["package", name, _] => package = (*name).to_owned(),
            ["message", name, rest @ ..] => out.push(Message {
                package: package.clone(),
                name: (*name).to_owned(),
                wrapper: rest == ["wrapper"],
                fields: Vec::new(),
            }),
            [number, json, ty, flags @ ..] => {
                let message = out
                    .last_mut()
                    .ok_or(format!("line {}: no message", i + 1))?;
                message.fields.push(Field {
                    number: number.parse().map_err(|_| format!("line {}", i + 1))?,
                    json: (*json).to_owned(),
                    ty: (*ty).to_owned(),
                    repeated: flags.contains(&"repeated"),
                    pointer: flags.contains(&"ptr"),
                    omitempty: flags.contains(&"omitempty"),
                    inline: flags.contains(&"inline"),
                });
            }
            _ => return Err(format!("schema line {}: not understood", i + 1)),
        }
    }
    Ok(out)
}

/// The source directory of the newest Kubernetes version of the k8s-openapi the workspace uses.
fn k8s_openapi_source(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi")
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("k8s-openapi is not in the workspace's dependencies")?;
    let src = Path::new(manifest).with_file_name("src");
    let newest = fs::read_dir(&src)
        .map_err(|e| format!("{}: {e}", src.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("v1_"))
        .max_by_key(|name| name[3..].parse::<u32>().unwrap_or(0))
        .ok_or("no version directory in k8s-openapi's source")?;
    Ok(src.join(newest))
}

/// The files as `cargo fmt` leaves them (formatted in a scratch directory under `target/`).
fn formatted(
    root: &Path,
    files: BTreeMap<PathBuf, String>,
) -> Result<BTreeMap<PathBuf, String>, String> {
    let scratch = root.join("target/protobuf-typed");
    let _ = fs::remove_dir_all(&scratch);
    fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let base = root.join("crates/kinformer-protobuf/src/typed");
    let mut scratch_files = Vec::new();
    for (path, text) in &files {
        let rel = path.strip_prefix(&base).map_err(|e| e.to_string())?;
        let scratch_path = scratch.join(rel);
        if let Some(dir) = scratch_path.parent() {
            fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        fs::write(&scratch_path, text).map_err(|e| e.to_string())?;
        scratch_files.push(scratch_path);
    }
    // rustfmt follows the root's `mod` lines to every other file.
    let status = Command::new("rustfmt")
        .args(["--edition", "2024"])
        .arg(scratch.join("generated.rs"))
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !status.success() {
        return Err("rustfmt failed on the generated code".to_owned());
    }
    files
        .into_keys()
        .zip(scratch_files)
        .map(|(path, scratch)| {
            let text = fs::read_to_string(&scratch).map_err(|e| e.to_string())?;
            Ok((path, text))
        })
        .collect()
}

pub(crate) fn run(args: &[String], root: &Path) -> Result<(), String> {
    let check = args.iter().any(|a| a == "--check");
    let schema_path = root.join("crates/kinformer-protobuf/schema/kubernetes.schema");
    let schema = fs::read_to_string(&schema_path).map_err(|e| format!("{e}"))?;
    let messages = parse_schema(&schema)?;
    let version = k8s_openapi_source(root)?;
    let structs = openapi::index(&version)?;
    let generated = emit::generate(&messages, &structs);
    for note in &generated.notes {
        eprintln!("protobuf-typed: {note}");
    }
    let out_dir = root.join("crates/kinformer-protobuf/src/typed/generated");
    let mut files: BTreeMap<PathBuf, String> = generated
        .files
        .into_iter()
        .map(|(name, text)| (out_dir.join(name), text))
        .collect();
    files.insert(
        root.join("crates/kinformer-protobuf/src/typed/generated.rs"),
        generated.root,
    );
    let files = formatted(root, files)?;
    if check {
        for (path, text) in &files {
            if fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
                // Generated from k8s-openapi's types, which a version bump changes.
                return Err(format!(
                    "{} is not what `cargo xtask protobuf-typed` generates",
                    path.display()
                ));
            }
        }
        eprintln!("protobuf-typed: the generated decoders and encoders are up to date");
        return Ok(());
    }
    let _ = fs::remove_dir_all(&out_dir);
    fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    for (path, text) in &files {
        fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    eprintln!(
        "protobuf-typed: {} messages in {} files",
        generated.messages,
        files.len() - 1,
    );
    Ok(())
}
