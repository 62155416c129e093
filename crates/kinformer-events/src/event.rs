//! An event's [`EventType`], one recorded [`Occurrence`], and the `events.k8s.io/v1` `Event`
//! client-go's `makeEvent` builds from it.

use std::sync::Arc;
use std::time::SystemTime;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kinformer_core::Random;

use kinformer_selector::is_dns1123_subdomain;

use crate::reporter::{Reporter, truncate};

/// The API server's limit on `note`, in bytes; longer notes are cut to it.
pub const NOTE_LENGTH_LIMIT: usize = 1024;

/// The API server's limit on `reason` and on `action`, in bytes.
const REASON_LENGTH_LIMIT: usize = 128;

/// An event's `type`.
///
/// ```
/// assert_eq!(kinformer_events::EventType::Warning.as_str(), "Warning");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    /// Something expected happened.
    Normal,
    /// Something a user may need to act on happened.
    Warning,
}

impl EventType {
    /// `"Normal"` or `"Warning"`, as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "Normal",
            Self::Warning => "Warning",
        }
    }
}

/// One call of [`Recorder::event`](crate::Recorder::event), on its way to the background task.
#[derive(Debug, Clone)]
pub(crate) struct Occurrence {
    pub(crate) reporter: Arc<Reporter>,
    pub(crate) regarding: ObjectReference,
    pub(crate) related: Option<ObjectReference>,
    pub(crate) event_type: EventType,
    pub(crate) reason: String,
    pub(crate) action: String,
    pub(crate) note: String,
    pub(crate) time: SystemTime,
}

impl Occurrence {
    /// Why the API server would refuse this event's reason or action, if it would.
    pub(crate) fn unusable(&self) -> Option<String> {
        [("reason", &self.reason), ("action", &self.action)]
            .into_iter()
            .find(|(_, value)| value.is_empty() || value.len() > REASON_LENGTH_LIMIT)
            .map(|(field, value)| {
                format!("{field} {value:?} must be 1 to {REASON_LENGTH_LIMIT} bytes")
            })
    }

    /// The Event client-go's `makeEvent` builds: named `<regarding name>.<unix nanoseconds in
    /// hex>` (a random UUID when that is no valid name), in the regarding object's namespace
    /// (`default` for cluster-scoped objects), the note cut to [`NOTE_LENGTH_LIMIT`].
    pub(crate) fn to_event(&self) -> Event {
        let namespace = self
            .regarding
            .namespace
            .as_deref()
            .filter(|ns| !ns.is_empty())
            .unwrap_or("default");
        Event {
            metadata: ObjectMeta {
                name: Some(event_name(
                    self.regarding.name.as_deref().unwrap_or_default(),
                    self.time,
                )),
                namespace: Some(namespace.to_owned()),
                ..ObjectMeta::default()
            },
            event_time: Some(micro_time(self.time)),
            reporting_controller: Some(self.reporter.controller().to_owned()),
            reporting_instance: Some(self.reporter.instance().to_owned()),
            action: Some(self.action.clone()),
            reason: Some(self.reason.clone()),
            type_: Some(self.event_type.as_str().to_owned()),
            regarding: Some(self.regarding.clone()),
            related: self.related.clone(),
            note: Some(truncate(&self.note, NOTE_LENGTH_LIMIT).to_owned()),
            ..Event::default()
        }
    }
}

/// `<regarding name>.<unix nanoseconds in hex>`, or a random UUID when that is not a DNS
/// subdomain (an upper-case or over-long regarding name), as client-go's `GenerateEventName`.
fn event_name(regarding: &str, time: SystemTime) -> String {
    let nanos = since_epoch_nanos(time);
    let name = format!("{regarding}.{nanos:x}");
    if is_dns1123_subdomain(&name) {
        return name;
    }
    // Each `Random::default` is seeded afresh, so names made in the same nanosecond differ.
    let mut random = Random::default();
    let bits = (u128::from(random.next_u64()) << 64) | u128::from(random.next_u64());
    // Version 4, variant 1: a random UUID as client-go's `uuid.New` makes.
    let bits = (bits & !(0xf_u128 << 76)) | (0x4_u128 << 76);
    let bits = (bits & !(0x3_u128 << 62)) | (0x2_u128 << 62);
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

fn since_epoch_nanos(time: SystemTime) -> u128 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
}

/// A wall-clock time as a `MicroTime` (the epoch if the clock reads before it).
pub(crate) fn micro_time(time: SystemTime) -> MicroTime {
    let nanos = i128::try_from(since_epoch_nanos(time)).unwrap_or(0);
    MicroTime(Timestamp::from_nanosecond(nanos).unwrap_or(Timestamp::UNIX_EPOCH))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn occurrence(name: &str, namespace: Option<&str>) -> Occurrence {
        Occurrence {
            reporter: Arc::new(
                Reporter::new("ctl")
                    .unwrap()
                    .with_instance("ctl-0")
                    .unwrap(),
            ),
            regarding: ObjectReference {
                kind: Some("Pod".into()),
                name: Some(name.into()),
                namespace: namespace.map(Into::into),
                ..ObjectReference::default()
            },
            related: None,
            event_type: EventType::Warning,
            reason: "Failed".into(),
            action: "Pulling".into(),
            note: "é".repeat(600),
            time: SystemTime::UNIX_EPOCH + Duration::from_nanos(0xabc_def0),
        }
    }

    #[test]
    fn events_are_named_and_placed_as_client_go_makes_them() {
        let event = occurrence("web-0", Some("shop")).to_event();
        assert_eq!(event.metadata.name.as_deref(), Some("web-0.abcdef0"));
        assert_eq!(event.metadata.namespace.as_deref(), Some("shop"));
        assert_eq!(event.type_.as_deref(), Some("Warning"));
        assert_eq!(event.reporting_controller.as_deref(), Some("ctl"));
        assert_eq!(event.reporting_instance.as_deref(), Some("ctl-0"));
        assert_eq!(event.event_time.unwrap().0.as_nanosecond(), 0xabc_def0);
        assert!(event.series.is_none());
        let cluster_scoped = occurrence("node-1", None).to_event();
        assert_eq!(
            cluster_scoped.metadata.namespace.as_deref(),
            Some("default")
        );
    }

    #[test]
    fn invalid_names_become_random_uuids() {
        let first = occurrence("Web_0", Some("shop"))
            .to_event()
            .metadata
            .name
            .unwrap();
        let second = occurrence("Web_0", Some("shop"))
            .to_event()
            .metadata
            .name
            .unwrap();
        assert_ne!(first, second);
        for name in [&first, &second] {
            let groups: Vec<_> = name.split('-').map(str::len).collect();
            assert_eq!(groups, [8, 4, 4, 4, 12], "{name}");
            assert_eq!(&name[14..15], "4", "version 4: {name}");
            assert!("89ab".contains(&name[19..20]), "variant 1: {name}");
            assert!(is_dns1123_subdomain(name));
        }
    }

    #[test]
    fn notes_are_cut_to_the_api_limit_on_a_character_boundary() {
        let note = occurrence("web-0", None).to_event().note.unwrap();
        assert_eq!(note.len(), 1024);
        assert_eq!(note.chars().count(), 512);
    }

    #[test]
    fn empty_or_long_reasons_and_actions_are_unusable() {
        assert_eq!(occurrence("web-0", None).unusable(), None);
        let mut empty_reason = occurrence("web-0", None);
        empty_reason.reason.clear();
        assert!(empty_reason.unusable().unwrap().starts_with("reason"));
        let mut long_action = occurrence("web-0", None);
        long_action.action = "a".repeat(129);
        assert!(long_action.unusable().unwrap().starts_with("action"));
    }
}
