//! [`Reporter`]: who reports events (`reportingController`, `reportingInstance`), checked as
//! the API server checks them.

use kinformer_selector::check_qualified_name;

use crate::error::{Error, Result};

/// The API server's limit on `reportingInstance`, in bytes.
const INSTANCE_LENGTH_LIMIT: usize = 128;

/// Who reports events: the `reportingController` (a qualified name such as
/// `example.com/widget-controller`) and the `reportingInstance` (which replica).
///
/// ```
/// use kinformer_events::Reporter;
///
/// let reporter = Reporter::new("example.com/widget-controller")?.with_instance("widget-controller-0")?;
/// assert_eq!(reporter.controller(), "example.com/widget-controller");
/// assert_eq!(reporter.instance(), "widget-controller-0");
/// assert!(Reporter::new("not a qualified name").is_err());
/// # Ok::<(), kinformer_events::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reporter {
    controller: String,
    instance: String,
}

impl Reporter {
    /// A reporter named `controller`, its instance `<controller>-<host name>` as client-go's
    /// `NewRecorder` names it (cut to the API's 128 bytes; just `controller` when the host
    /// name cannot be read).
    ///
    /// # Errors
    /// [`Error::InvalidReporter`] when `controller` is not a qualified name (`[prefix/]name`:
    /// a DNS subdomain prefix, a name of at most 63 alphanumerics, `-`, `_` and `.` that
    /// starts and ends alphanumeric), which the API server would refuse.
    pub fn new(controller: impl Into<String>) -> Result<Self> {
        let controller = controller.into();
        check_reporting_controller(&controller)?;
        let instance = match hostname() {
            Some(host) => {
                truncate(&format!("{controller}-{host}"), INSTANCE_LENGTH_LIMIT).to_owned()
            }
            None => truncate(&controller, INSTANCE_LENGTH_LIMIT).to_owned(),
        };
        Ok(Self {
            controller,
            instance,
        })
    }

    /// The same reporter as another instance (a pod name is a good one).
    ///
    /// # Errors
    /// [`Error::InvalidReporter`] when `instance` is empty or longer than 128 bytes.
    pub fn with_instance(mut self, instance: impl Into<String>) -> Result<Self> {
        let instance = instance.into();
        if instance.is_empty() || instance.len() > INSTANCE_LENGTH_LIMIT {
            return Err(Error::InvalidReporter(format!(
                "reporting instance {instance:?} must be 1 to {INSTANCE_LENGTH_LIMIT} bytes"
            )));
        }
        self.instance = instance;
        Ok(self)
    }

    /// The reporting controller.
    pub fn controller(&self) -> &str {
        &self.controller
    }

    /// The reporting instance.
    pub fn instance(&self) -> &str {
        &self.instance
    }
}

/// The API server's `IsQualifiedName`, which `reportingController` must pass.
fn check_reporting_controller(value: &str) -> Result<()> {
    check_qualified_name(value).map_err(|error| {
        let why = match error {
            kinformer_selector::Error::InvalidKey { reason, .. } => reason,
            _ => "it breaks the API server's rules",
        };
        Error::InvalidReporter(format!(
            "reporting controller {value:?} is not a qualified name: {why}"
        ))
    })
}

/// `value` cut to at most `limit` bytes, on a character boundary.
pub(crate) fn truncate(value: &str, limit: usize) -> &str {
    if value.len() <= limit {
        return value;
    }
    let mut end = limit;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    &value[..end]
}

fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|host| host.trim().to_owned())
        .filter(|host| !host.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controllers_must_be_qualified_names() {
        for good in ["ctl", "example.com/widget-controller", "a.b_c-d", "x/y"] {
            assert!(Reporter::new(good).is_ok(), "{good}");
        }
        let long = "n".repeat(64);
        for bad in [
            "",
            "-ctl",
            "ctl-",
            "a b",
            "Example.com/ctl",
            "/ctl",
            "a/b/c",
            &long,
        ] {
            assert!(
                matches!(Reporter::new(bad), Err(Error::InvalidReporter(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn instances_default_to_controller_and_host_within_the_limit() {
        let reporter = Reporter::new("example.com/ctl").unwrap();
        assert!(reporter.instance().starts_with("example.com/ctl"));
        assert!(reporter.instance().len() <= INSTANCE_LENGTH_LIMIT);
        let long_prefix = format!("{}.com/ctl", "d".repeat(120));
        assert_eq!(Reporter::new(long_prefix).unwrap().instance().len(), 128);
        let reporter = reporter.with_instance("ctl-0").unwrap();
        assert_eq!(reporter.instance(), "ctl-0");
        assert!(reporter.clone().with_instance("").is_err());
        assert!(reporter.with_instance("i".repeat(129)).is_err());
    }

    #[test]
    fn truncation() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate(&format!("a{}", "é".repeat(600)), 1024).len(), 1023);
    }
}
