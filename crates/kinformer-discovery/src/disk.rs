//! kubectl's discovery cache on disk: `<cache dir>/discovery/<host_port>/servergroups.json` and
//! `<group>/<version>/serverresources.json` beside it, each trusted for a TTL after it was
//! written (its modification time). The files are the legacy documents kubectl writes, so
//! kubectl and kinformer share one cache.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::fetch::decode;
use crate::model::{ApiGroup, ServerResources};
use crate::wire::{GroupList, ResourceList, group_version};

/// kubectl's TTL of its discovery cache.
pub const DEFAULT_TTL: Duration = Duration::from_secs(6 * 60 * 60);

const GROUPS_FILE: &str = "servergroups.json";
const RESOURCES_FILE: &str = "serverresources.json";

/// kubectl's cache directory: `$KUBECACHEDIR`, else `~/.kube/cache`; `None` without a home.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KUBECACHEDIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())?;
    Some(Path::new(&home).join(".kube").join("cache"))
}

/// The directory of one server's files under `cache_dir`, named as kubectl names it: the
/// server URL without its scheme, every character but letters, digits, `_`, `/`, `.`, `(` and
/// `)` replaced by `_` (`https://10.0.0.1:6443` → `discovery/10.0.0.1_6443`).
pub fn server_dir(cache_dir: &Path, server_url: &str) -> PathBuf {
    let schemeless = server_url
        .strip_prefix("https://")
        .or_else(|| server_url.strip_prefix("http://"))
        .unwrap_or(server_url);
    let safe: String = schemeless
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '(' | ')') {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache_dir.join("discovery").join(safe)
}

/// One server's cache files.
#[derive(Debug, Clone)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    ttl: Duration,
}

impl DiskCache {
    pub(crate) fn new(dir: PathBuf, ttl: Duration) -> Self {
        Self { dir, ttl }
    }

    /// Everything, if every file is present, younger than the TTL and readable; else `None`
    /// (and the caller asks the server).
    pub(crate) fn read(&self) -> Option<ServerResources> {
        let groups: GroupList = self.read_file(&self.dir.join(GROUPS_FILE))?;
        let mut out = ServerResources::default();
        for g in groups.groups {
            let mut versions = Vec::new();
            for v in &g.versions {
                let path = self
                    .dir
                    .join(group_version(&g.name, &v.version))
                    .join(RESOURCES_FILE);
                let list: ResourceList = self.read_file(&path)?;
                versions.push(list.into_version(&g.name, &v.version));
            }
            let mut group = ApiGroup::new(g.name.clone(), versions);
            group.preferred_version = g.preferred();
            out.groups.push(group);
        }
        Some(out)
    }

    fn read_file<T: serde::de::DeserializeOwned>(&self, path: &Path) -> Option<T> {
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
        let age = SystemTime::now()
            .duration_since(modified)
            .unwrap_or_default();
        if age > self.ttl {
            tracing::debug!(path = %path.display(), ?age, "discovery cache file expired");
            return None;
        }
        let body = std::fs::read(path).ok()?;
        match decode(&path.display().to_string(), &body) {
            Ok(value) => Some(value),
            Err(e) => {
                tracing::debug!(path = %path.display(), error = %e, "discovery cache file unreadable");
                None
            }
        }
    }

    /// Writes every file, each atomically (a temporary file renamed over it). Failures are
    /// logged, not returned: a cache that cannot be written only costs the next run requests.
    pub(crate) fn write(&self, resources: &ServerResources) {
        // Group versions that failed are left out, so the next read asks the server again.
        let described: Vec<ApiGroup> = resources
            .groups
            .iter()
            .filter(|g| !g.versions.is_empty())
            .cloned()
            .collect();
        let mut files = vec![(
            self.dir.join(GROUPS_FILE),
            serde_json::to_vec(&GroupList::of(&described)),
        )];
        for g in &described {
            for v in &g.versions {
                files.push((
                    self.dir
                        .join(group_version(&g.name, &v.version))
                        .join(RESOURCES_FILE),
                    serde_json::to_vec(&ResourceList::of(&g.name, v)),
                ));
            }
        }
        for (path, body) in files {
            let written = body
                .map_err(std::io::Error::other)
                .and_then(|body| write_atomically(&path, &body));
            if let Err(e) = written {
                tracing::warn!(path = %path.display(), error = %e, "cannot write the discovery cache");
                return;
            }
        }
    }
}

fn write_atomically(path: &Path, body: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("a cache file has no directory"))?;
    std::fs::create_dir_all(dir)?;
    // Unique per process and write, so concurrent writers never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("cache"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, body)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_dirs_are_named_as_kubectl_names_them() {
        let base = Path::new("/c");
        assert_eq!(
            server_dir(base, "https://10.0.0.1:6443"),
            Path::new("/c/discovery/10.0.0.1_6443")
        );
        assert_eq!(
            server_dir(base, "http://localhost:8080/prefix"),
            Path::new("/c/discovery/localhost_8080/prefix")
        );
        assert_eq!(
            server_dir(base, "https://[::1]:6443"),
            Path::new("/c/discovery/___1__6443")
        );
    }
}
