//! The presets' numbers, the delays' growth, cap, steps and reset, and the jitter's bounds.

use std::time::{Duration, Instant};

use super::random::jittered;
use super::*;

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[test]
fn reflector_delays_double_with_full_jitter_up_to_the_cap() {
    let mut random = Random::seeded(1);
    let mut delays = Backoff::REFLECTOR.delays();
    let mut now = Instant::now();
    let bases = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0, 30.0];
    for base in bases {
        let delay = delays.next(now, &mut random).as_secs_f64();
        assert!(
            delay >= base && delay < 2.0 * base,
            "{delay} not in [{base}, {})",
            2.0 * base
        );
        now += secs(delay);
    }
}

#[test]
fn reflector_delays_reset_after_two_quiet_minutes() {
    let mut random = Random::seeded(2);
    let mut delays = Backoff::REFLECTOR.delays();
    let now = Instant::now();
    for _ in 0..5 {
        delays.next(now, &mut random);
    }
    let later = now + Duration::from_secs(119);
    assert!(!delays.lapsed(later));
    assert!(delays.next(later, &mut random) >= secs(25.6));
    let quiet = later + Duration::from_secs(121);
    assert!(delays.lapsed(quiet));
    assert!(delays.next(quiet, &mut random) < secs(1.6));
}

/// No backoff, however extreme, makes a delay panic; a factor below 1 (or NaN) is refused, so
/// the delays never shrink.
#[test]
fn extreme_settings_never_panic_and_shrinking_ones_are_refused() {
    let mut random = Random::seeded(4);
    let second = Duration::from_secs(1);
    for (factor, cap) in [
        (f64::INFINITY, Duration::MAX),
        (f64::MAX, Duration::MAX),
        (1.0, Duration::ZERO),
    ] {
        let backoff = Backoff::REFLECTOR
            .with_initial(second)
            .with_factor(factor)
            .unwrap()
            .with_cap(cap)
            .with_reset_after(Duration::MAX);
        let mut delays = backoff.delays();
        let now = Instant::now();
        let drawn: Vec<Duration> = (0..4).map(|_| delays.next(now, &mut random)).collect();
        assert!(drawn[0] >= second && drawn[0] < second * 2, "{drawn:?}");
        if cap.is_zero() {
            // The first delay is the initial one whatever the cap; then the cap.
            assert!(drawn[1..].iter().all(Duration::is_zero), "{drawn:?}");
        }
    }
    for factor in [f64::NAN, -3.0, 0.0, 0.99] {
        assert_eq!(
            Backoff::REFLECTOR.with_factor(factor),
            Err(BackoffError::Factor),
            "{factor}"
        );
    }
    for jitter in [f64::NAN, -0.1, f64::INFINITY] {
        assert_eq!(
            Backoff::REFLECTOR.with_jitter(jitter),
            Err(BackoffError::Jitter),
            "{jitter}"
        );
    }
    assert_eq!(
        Backoff::DEFAULT_RETRY.with_steps(0),
        Err(BackoffError::Steps)
    );
}

#[test]
fn same_seed_same_delays() {
    let draw = |seed| {
        let mut random = Random::seeded(seed);
        let mut delays = Backoff::REFLECTOR.delays();
        let now = Instant::now();
        (0..8)
            .map(|_| delays.next(now, &mut random))
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(9), draw(9));
    assert_ne!(draw(9), draw(10));
}

#[test]
fn retry_presets_are_client_gos() {
    let retry = Backoff::DEFAULT_RETRY;
    assert_eq!(
        (
            retry.initial(),
            retry.factor(),
            retry.jitter(),
            retry.steps()
        ),
        (Duration::from_millis(10), 1.0, 0.1, Some(5))
    );
    assert_eq!(
        jittered(retry.initial(), retry.jitter(), 0.0),
        Duration::from_millis(10)
    );
    assert_eq!(
        jittered(retry.initial(), retry.jitter(), 0.999),
        Duration::from_micros(10_999)
    );
    let backoff = Backoff::DEFAULT_BACKOFF;
    assert_eq!(
        (
            backoff.factor(),
            backoff.jitter(),
            backoff.steps(),
            backoff.cap()
        ),
        (5.0, 0.1, Some(4), None)
    );
    let events = Backoff::EVENT_RECORDING;
    assert_eq!(
        (
            events.initial(),
            events.factor(),
            events.jitter(),
            events.steps()
        ),
        (Duration::from_secs(10), 1.0, 0.25, Some(12))
    );
    let election = Backoff::LEADER_ELECTION;
    assert_eq!(
        (election.initial(), election.jitter()),
        (Duration::from_secs(2), 1.2)
    );
}

#[test]
fn a_retry_loop_gets_one_delay_fewer_than_its_steps() {
    let doubling = Backoff::DEFAULT_RETRY
        .with_factor(2.0)
        .unwrap()
        .with_jitter(0.0)
        .unwrap();
    let mut delays = doubling.delays();
    let mut random = Random::seeded(3);
    let now = Instant::now();
    let waits: Vec<Duration> = std::iter::from_fn(|| delays.next_retry(now, &mut random)).collect();
    let millis = Duration::from_millis;
    assert_eq!(waits, [millis(10), millis(20), millis(40), millis(80)]);
    // Past its steps, `next` keeps answering without growing, as client-go's `Step`.
    // (the fifth step is the last that grows).
    assert_eq!(delays.next(now, &mut random), millis(160));
    assert_eq!(delays.next(now, &mut random), millis(320));
    assert_eq!(delays.next(now, &mut random), millis(320));
    delays.restart();
    assert_eq!(delays.next_retry(now, &mut random), Some(millis(10)));
}

#[test]
fn jitter_stays_in_its_bounds_and_saturates() {
    let mut random = Random::seeded(5);
    let second = Duration::from_secs(1);
    for _ in 0..1000 {
        let unit = random.unit();
        assert!((0.0..1.0).contains(&unit));
        let jittered = random.jitter(second, 0.25);
        assert!(jittered >= second && jittered < secs(1.25), "{jittered:?}");
    }
    assert_eq!(random.jitter(second, 0.0), second);
    assert_eq!(random.jitter(second, f64::NAN), second);
    assert_eq!(jittered(Duration::MAX, 1.2, 0.9), Duration::MAX);
}
