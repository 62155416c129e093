//! The special messages k8s-openapi holds in types of their own: `Time` and `MicroTime` (built
//! from their seconds, never written as text), `Quantity` and `IntOrString`, as the serde path
//! reads them (see [`Special`](crate::Special)), and their encoders, which write what the serde
//! encoder writes of their JSON forms (and Go of its values).

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;

use super::Cx;
use super::encode::{Encode, nested, put_int};
use super::field::{Field, bytes};
use crate::de::{fields, int, text};
use crate::error::{Error, Result};
use crate::time;
use crate::wire::{WireValue, put_bytes};

/// The instant of `seconds` and `micros`, in the range the JSON form can write (years 0 to 9999).
fn timestamp(seconds: i64, micros: u32) -> Result<Timestamp> {
    let invalid = || Error::InvalidValue {
        what: "time",
        value: format!("{seconds} seconds since the epoch"),
    };
    if !time::WRITABLE_SECONDS.contains(&seconds) {
        return Err(invalid());
    }
    let nanos = i32::try_from(micros.min(999_999) * 1000).map_err(|_| invalid())?;
    Timestamp::new(seconds, nanos).map_err(|_| invalid())
}

/// A time message (`seconds` = 1, `nanos` = 2), to the second or to the microsecond.
fn time(value: WireValue<'_>, micro: bool) -> Result<Option<Timestamp>> {
    let b = bytes(value, "a time")?;
    if b.is_empty() {
        return Ok(None);
    }
    let [seconds, nanos] = fields(b, [1, 2])?;
    let micros = if micro {
        u32::try_from(int(nanos) / 1000).unwrap_or(0)
    } else {
        0
    };
    timestamp(int(seconds), micros).map(Some)
}

fn zero_time() -> Error {
    Error::InvalidValue {
        what: "time",
        value: "the zero time in a field that cannot be null".into(),
    }
}

impl Field for Time {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        Self::decode_option(cx, value)?.ok_or_else(zero_time)
    }

    fn decode_option(_: &mut Cx, value: WireValue<'_>) -> Result<Option<Self>> {
        Ok(time(value, false)?.map(Self))
    }
}

impl Field for MicroTime {
    fn decode(cx: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        Self::decode_option(cx, value)?.ok_or_else(zero_time)
    }

    fn decode_option(_: &mut Cx, value: WireValue<'_>) -> Result<Option<Self>> {
        Ok(time(value, true)?.map(Self))
    }
}

impl Field for Quantity {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        let [s] = fields(bytes(value, "a quantity")?, [1])?;
        // Go writes the zero quantity as an empty string; its JSON form is "0".
        Ok(Self(match text(s)? {
            "" => "0".to_owned(),
            s => s.to_owned(),
        }))
    }
}

impl Field for IntOrString {
    fn decode(_: &mut Cx, value: WireValue<'_>) -> Result<Self> {
        let [kind, int_val, str_val] = fields(bytes(value, "an int-or-string")?, [1, 2, 3])?;
        Ok(if int(kind) == 1 {
            Self::String(text(str_val)?.to_owned())
        } else {
            // intVal is an int32.
            Self::Int(int(int_val) as i32)
        })
    }
}

/// The seconds and the nanoseconds within them of `at`, as its RFC 3339 text says them (the
/// second is the floor: before the epoch the fraction still counts up from it).
fn seconds_and_nanos(at: Timestamp) -> Result<(i64, i64)> {
    let (mut seconds, mut nanos) = (at.as_second(), i64::from(at.subsec_nanosecond()));
    if nanos < 0 {
        seconds -= 1;
        nanos += 1_000_000_000;
    }
    if !time::WRITABLE_SECONDS.contains(&seconds) {
        // Its JSON text is not RFC 3339, which the serde encoder refuses too.
        return Err(Error::InvalidValue {
            what: "time",
            value: format!("{seconds} seconds since the epoch"),
        });
    }
    Ok((seconds, nanos))
}

/// A time message: the seconds always, the nanoseconds (kept to the microsecond, or none for a
/// time to the second) when not zero.
fn put_time(
    at: Timestamp,
    micro: bool,
    number: u32,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let (seconds, nanos) = seconds_and_nanos(at)?;
    let nanos = if micro { nanos / 1000 * 1000 } else { 0 };
    nested(out, number, depth, |out, _| {
        // Protobuf's int64 is the two's complement bit pattern: the cast is the encoding.
        put_int(out, 1, seconds as u64);
        if nanos != 0 {
            put_int(out, 2, nanos as u64);
        }
        Ok(())
    })
}

impl Encode for Time {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        put_time(self.0, false, number, depth, out)
    }
}

impl Encode for MicroTime {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        put_time(self.0, true, number, depth, out)
    }
}

impl Encode for Quantity {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        nested(out, number, depth, |out, _| {
            put_bytes(out, 1, self.0.as_bytes());
            Ok(())
        })
    }
}

/// All three fields, as Go writes them: the type, the number (0 for text) and the text (empty
/// for a number).
impl Encode for IntOrString {
    fn put(&self, number: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        nested(out, number, depth, |out, _| {
            match self {
                Self::Int(n) => {
                    put_int(out, 1, 0);
                    // int32's varint is its 64-bit two's complement: the casts are the encoding.
                    put_int(out, 2, i64::from(*n) as u64);
                    put_bytes(out, 3, b"");
                }
                Self::String(text) => {
                    put_int(out, 1, 1);
                    put_int(out, 2, 0);
                    put_bytes(out, 3, text.as_bytes());
                }
            }
            Ok(())
        })
    }
}
