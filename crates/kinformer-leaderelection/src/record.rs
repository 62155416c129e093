//! [`LeaderElectionRecord`]: what a lease says about its holder, and its mapping to a
//! `coordination.k8s.io/v1` `LeaseSpec`.

use std::time::{SystemTime, UNIX_EPOCH};

use k8s_openapi::api::coordination::v1::LeaseSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::{SignedDuration, Timestamp};

/// The election fields of a Lease (client-go `resourcelock.LeaderElectionRecord`).
///
/// The times are the writer's wall clock and are informational only: candidates never compare
/// them with their own clock (a lease expires a lease duration after a candidate *observed* it
/// change, by its local monotonic clock).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderElectionRecord {
    /// Who holds the lease; `None` when nobody does (after a release; the lease then says
    /// `""`, as client-go writes it).
    pub holder_identity: Option<String>,
    /// `leaseDurationSeconds`: how long others wait after the last observed change.
    pub lease_duration_seconds: i32,
    /// When the current holder acquired the lease.
    pub acquire_time: Option<Timestamp>,
    /// When the holder last renewed it.
    pub renew_time: Option<Timestamp>,
    /// `leaseTransitions`: how many times the lease changed holders.
    pub leader_transitions: i32,
}

impl LeaderElectionRecord {
    /// The record a lease spec holds; absent fields read as zero, as in client-go, and an
    /// absent or empty holder as `None`.
    pub fn from_lease_spec(spec: &LeaseSpec) -> Self {
        Self {
            holder_identity: spec.holder_identity.clone().filter(|h| !h.is_empty()),
            lease_duration_seconds: spec.lease_duration_seconds.unwrap_or_default(),
            acquire_time: spec.acquire_time.as_ref().map(|t| t.0),
            renew_time: spec.renew_time.as_ref().map(|t| t.0),
            leader_transitions: spec.lease_transitions.unwrap_or_default(),
        }
    }

    /// The spec client-go writes: every field set, the holder `""` when nobody holds it.
    pub fn to_lease_spec(&self) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(self.holder_identity.clone().unwrap_or_default()),
            lease_duration_seconds: Some(self.lease_duration_seconds),
            acquire_time: self.acquire_time.map(MicroTime),
            renew_time: self.renew_time.map(MicroTime),
            lease_transitions: Some(self.leader_transitions),
            ..LeaseSpec::default()
        }
    }
}

/// The wall clock, truncated to the microseconds a `MicroTime` carries.
pub(crate) fn wall_now() -> Timestamp {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX);
    // Below 10^9, so it fits an i32.
    let nanos = (since_epoch.subsec_micros() * 1000) as i32;
    Timestamp::new(seconds, nanos).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// The `renewTime` of a write replacing a record renewed at `previous`: now, or a microsecond
/// after `previous` when the wall clock has not passed it.
///
/// A renewal must change the lease: the API server answers an update that changes nothing
/// without writing (the resourceVersion stays), and other candidates would then not see a
/// renewal the leader counts as one.
pub(crate) fn renew_time_after(previous: Option<Timestamp>) -> Timestamp {
    let now = wall_now();
    match previous {
        Some(previous) if previous >= now => previous
            .checked_add(SignedDuration::from_micros(1))
            .unwrap_or(previous),
        _ => now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_a_lease_spec_as_client_go_writes_it() {
        let record = LeaderElectionRecord {
            holder_identity: Some("a".into()),
            lease_duration_seconds: 15,
            acquire_time: Some(wall_now()),
            renew_time: Some(wall_now()),
            leader_transitions: 3,
        };
        let spec = record.to_lease_spec();
        let json = serde_json::to_value(&spec).unwrap();
        assert_eq!(json["holderIdentity"], "a");
        assert_eq!(json["leaseDurationSeconds"], 15);
        assert_eq!(json["leaseTransitions"], 3);
        assert!(json["renewTime"].as_str().unwrap().ends_with('Z'));
        assert_eq!(LeaderElectionRecord::from_lease_spec(&spec), record);

        let released = LeaderElectionRecord::default().to_lease_spec();
        assert_eq!(
            serde_json::to_value(&released).unwrap()["holderIdentity"],
            ""
        );
        assert_eq!(
            LeaderElectionRecord::from_lease_spec(&LeaseSpec::default()),
            LeaderElectionRecord::default()
        );
        assert_eq!(
            LeaderElectionRecord::from_lease_spec(&released).holder_identity,
            None,
            "an empty holder is nobody"
        );
    }

    #[test]
    fn a_renewal_moves_renew_time_even_when_the_wall_clock_has_not() {
        let ahead = wall_now()
            .checked_add(SignedDuration::from_secs(3600))
            .unwrap();
        assert_eq!(
            renew_time_after(Some(ahead)),
            ahead.checked_add(SignedDuration::from_micros(1)).unwrap()
        );
        let behind = Timestamp::UNIX_EPOCH;
        assert!(renew_time_after(Some(behind)) > behind);
        let first = renew_time_after(None);
        assert!(renew_time_after(Some(first)) > first);
    }
}
