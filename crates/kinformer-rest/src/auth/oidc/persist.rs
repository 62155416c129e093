//! Writing refreshed tokens back to the kubeconfig file the user came from, as kubectl does, but
//! atomically: the file is re-read, only that user's `auth-provider.config` changes, and the
//! result replaces the file by rename, so a reader never sees half a file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_yaml_ng::{Mapping, Value};

use crate::error::{Error, Kind, Result};

/// Which file and which `users[]` entry the tokens go to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PersistTarget {
    pub(crate) file: PathBuf,
    pub(crate) user: String,
}

fn persist_error(file: &Path, what: impl std::fmt::Display) -> Error {
    Error::new(
        Kind::Auth,
        format!(
            "oidc: could not write the new tokens to {}: {what}",
            file.display()
        ),
    )
}

/// Sets `id-token` (and `refresh-token` when given) in `target.user`'s `auth-provider.config`.
pub(crate) fn write_tokens(
    target: &PersistTarget,
    id_token: &str,
    refresh_token: Option<&str>,
) -> Result<()> {
    // Through a symbolic link, the file it points to is replaced, not the link.
    let file = std::fs::canonicalize(&target.file).unwrap_or_else(|_| target.file.clone());
    let text = std::fs::read_to_string(&file)
        .map_err(|e| persist_error(&file, "it cannot be read").with_source(e))?;
    let mut doc: Value = serde_yaml_ng::from_str(&text)
        .map_err(|_| persist_error(&file, "it is no longer a valid kubeconfig"))?;
    let config = provider_config(&mut doc, &target.user).ok_or_else(|| {
        persist_error(&file, format_args!("it has no oidc user {:?}", target.user))
    })?;
    config.insert("id-token".into(), id_token.into());
    if let Some(refresh_token) = refresh_token {
        config.insert("refresh-token".into(), refresh_token.into());
    }
    let out = serde_yaml_ng::to_string(&doc)
        .map_err(|e| persist_error(&file, "it cannot be serialized").with_source(e))?;
    replace(&file, out.as_bytes()).map_err(|e| persist_error(&file, e))
}

/// The `auth-provider.config` mapping of the user named `user` (created when null).
fn provider_config<'a>(doc: &'a mut Value, user: &str) -> Option<&'a mut Mapping> {
    let entry = doc
        .get_mut("users")?
        .as_sequence_mut()?
        .iter_mut()
        .find(|u| u.get("name").and_then(Value::as_str) == Some(user))?;
    let provider = entry.get_mut("user")?.get_mut("auth-provider")?;
    let provider = provider.as_mapping_mut()?;
    let config = provider
        .entry("config".into())
        .or_insert(Value::Mapping(Mapping::new()));
    if config.is_null() {
        *config = Value::Mapping(Mapping::new());
    }
    config.as_mapping_mut()
}

/// Writes `bytes` to a new file beside `file` (with its permissions) and renames it over `file`.
fn replace(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = file
        .file_name()
        .map_or_else(|| "kubeconfig".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        SEQUENCE.fetch_add(1, Ordering::Relaxed)
    ));
    let permissions = std::fs::metadata(file)?.permissions();
    let written = (|| {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        // Tokens are secrets: the new file is as private as the old one from its first byte.
        out.set_permissions(permissions)?;
        out.write_all(bytes)?;
        out.sync_all()?;
        std::fs::rename(&temp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "\
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: 'https://example.com'}
users:
- name: other
  user: {token: keep-me}
- name: me
  user:
    auth-provider:
      name: oidc
      config: {client-id: k, id-token: old, refresh-token: r1, idp-issuer-url: 'https://idp'}
contexts:
- name: x
  context: {cluster: c, user: me}
current-context: x
";

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kinformer-oidc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("config");
        std::fs::write(&file, text).unwrap();
        file
    }

    #[test]
    fn only_the_users_tokens_change() {
        let file = temp_file("only", FILE);
        let target = PersistTarget {
            file: file.clone(),
            user: "me".into(),
        };
        write_tokens(&target, "new-id", Some("r2")).unwrap();
        let before: Value = serde_yaml_ng::from_str(FILE).unwrap();
        let mut after: Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let config = provider_config(&mut after, "me").unwrap();
        assert_eq!(config.get("id-token").unwrap(), "new-id");
        assert_eq!(config.get("refresh-token").unwrap(), "r2");
        assert_eq!(config.get("client-id").unwrap(), "k");
        config.insert("id-token".into(), "old".into());
        config.insert("refresh-token".into(), "r1".into());
        assert_eq!(after, before);
        let leftovers = std::fs::read_dir(file.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt as _;
        let file = temp_file("perm", FILE);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let target = PersistTarget {
            file: file.clone(),
            user: "me".into(),
        };
        write_tokens(&target, "new-id", None).unwrap();
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_vanished_user_is_an_error_and_the_file_is_untouched() {
        let file = temp_file("gone", FILE);
        let target = PersistTarget {
            file: file.clone(),
            user: "nobody".into(),
        };
        let err = write_tokens(&target, "new-id", None).unwrap_err();
        assert!(
            err.is_auth() && err.to_string().contains("\"nobody\""),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), FILE);
    }
}
