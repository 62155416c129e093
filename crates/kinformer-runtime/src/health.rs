//! [`Health`]: named readiness checks, as `/readyz` reports them.

use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, PoisonError};

/// A process's readiness: a set of named checks, each set ready by what it watches (the
/// caches synced, a controller started). The process is ready when every check is;
/// [`report`](Self::report) writes what `/readyz` answers (kube-apiserver's and
/// controller-runtime's form).
///
/// Cloning gives another handle to the same checks.
///
/// ```
/// use kinformer_runtime::Health;
///
/// let health = Health::new();
/// let caches = health.check("caches");
/// assert!(!health.is_ready());
/// caches.set_ready(true);
/// assert!(health.is_ready());
/// assert_eq!(health.report(true), "[+]caches ok\nreadyz check passed\n");
/// ```
#[derive(Clone, Default)]
pub struct Health {
    checks: Arc<Mutex<Vec<(String, bool)>>>,
}

impl Health {
    /// No checks yet: ready.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a check named `name`, not ready until [`Check::set_ready`] says so.
    pub fn check(&self, name: impl Into<String>) -> Check {
        let mut checks = self.lock();
        checks.push((name.into(), false));
        Check {
            health: self.clone(),
            index: checks.len() - 1,
        }
    }

    /// True when every check is ready.
    pub fn is_ready(&self) -> bool {
        self.lock().iter().all(|(_, ready)| *ready)
    }

    /// What `/readyz` answers: each failing check (every check when `verbose`), then the
    /// verdict.
    pub fn report(&self, verbose: bool) -> String {
        let checks = self.lock();
        let mut out = String::new();
        for (name, ready) in checks.iter() {
            if *ready && verbose {
                let _ = writeln!(out, "[+]{name} ok");
            } else if !*ready {
                let _ = writeln!(out, "[-]{name} failed: not ready");
            }
        }
        let passed = checks.iter().all(|(_, ready)| *ready);
        out.push_str(if passed {
            "readyz check passed\n"
        } else {
            "readyz check failed\n"
        });
        out
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, bool)>> {
        // A poisoned lock only means a panic elsewhere; the flags stay valid.
        self.checks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.lock().iter().cloned()).finish()
    }
}

/// One readiness check of a [`Health`].
#[derive(Clone, Debug)]
pub struct Check {
    health: Health,
    index: usize,
}

impl Check {
    /// Marks the check ready or not.
    pub fn set_ready(&self, ready: bool) {
        if let Some(check) = self.health.lock().get_mut(self.index) {
            check.1 = ready;
        }
    }

    /// True when the check is ready.
    pub fn is_ready(&self) -> bool {
        self.health
            .lock()
            .get(self.index)
            .is_some_and(|(_, ready)| *ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_when_every_check_is() {
        let health = Health::new();
        assert!(health.is_ready());
        let (caches, leader) = (health.check("caches"), health.check("controller"));
        caches.set_ready(true);
        assert!(!health.is_ready());
        assert_eq!(
            health.report(false),
            "[-]controller failed: not ready\nreadyz check failed\n"
        );
        leader.set_ready(true);
        assert!(health.is_ready() && leader.is_ready());
        assert_eq!(
            health.report(true),
            "[+]caches ok\n[+]controller ok\nreadyz check passed\n"
        );
        caches.set_ready(false);
        assert!(!health.is_ready());
    }
}
