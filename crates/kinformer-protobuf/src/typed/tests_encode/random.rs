//! Random messages of the schema, valid for the decoders: the objects the encoders are
//! compared on.

use crate::schema::{FieldType, MessageId, Scalar, Schema, Special};
use crate::wire::{FIXED64, put_bytes, put_tag, put_varint};

/// A small deterministic generator (xorshift64*): the same objects on every run.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Deepest nesting of a random message: enough for a pod's containers' probes' handlers.
const RANDOM_DEPTH: usize = 6;

/// A random message `id`: each field present or not, a few items of a list or map, scalars
/// with their zeros and extremes, special messages in their valid forms.
pub(super) fn random_message(
    schema: &Schema,
    id: MessageId,
    rng: &mut Rng,
    depth: usize,
) -> Vec<u8> {
    let message = &schema[id];
    let mut out = Vec::new();
    let put_int = |out: &mut Vec<u8>, number: u32, n: i64| {
        put_tag(out, number, crate::wire::VARINT);
        put_varint(out, n as u64);
    };
    match message.special {
        Some(Special::Time | Special::MicroTime) => {
            if rng.below(5) > 0 {
                put_int(&mut out, 1, (rng.next() % 4_000_000_000) as i64);
                let nanos = *rng.pick(&[0, 1_000, 999_999_000, 5]);
                if nanos != 0 {
                    put_int(&mut out, 2, nanos);
                }
            }
            return out;
        }
        Some(Special::Quantity) => {
            put_bytes(&mut out, 1, rng.pick(&["", "1", "500m", "1Gi"]).as_bytes());
            return out;
        }
        Some(Special::IntOrString) => {
            if rng.below(2) == 0 {
                put_int(&mut out, 1, 0);
                put_int(&mut out, 2, *rng.pick(&[0, 80, -1, i64::from(i32::MAX)]));
            } else {
                put_int(&mut out, 1, 1);
                put_bytes(&mut out, 3, rng.pick(&["http", "25%", ""]).as_bytes());
            }
            return out;
        }
        Some(Special::RawJson) => {
            let json = rng.pick(&["{}", "{\"a\":[1,\"x\"]}", "3", "\"s\""]);
            put_bytes(&mut out, 1, json.as_bytes());
            return out;
        }
        Some(Special::Duration) => {
            put_int(&mut out, 1, *rng.pick(&[0, 1_000_000_000, 90_000_000_000]));
            return out;
        }
        Some(special @ (Special::SchemaOrArray | Special::SchemaOrStringArray)) => {
            // Never empty: the JSON form is a schema or a list, not nothing.
            let schema_type = message.field(1).map(|f| &f.ty);
            match schema_type {
                Some(FieldType::Message(inner)) if rng.below(2) == 0 && depth < RANDOM_DEPTH => {
                    put_bytes(&mut out, 1, &random_message(schema, *inner, rng, depth + 1));
                }
                _ if special == Special::SchemaOrStringArray => {
                    put_bytes(&mut out, 2, b"a");
                }
                _ => put_bytes(&mut out, 2, b""),
            }
            return out;
        }
        Some(Special::SchemaOrBool) => {
            put_int(&mut out, 1, 1);
            if let Some(FieldType::Message(inner)) = message.field(2).map(|f| &f.ty)
                && rng.below(2) == 0
                && depth < RANDOM_DEPTH
            {
                put_bytes(&mut out, 2, &random_message(schema, *inner, rng, depth + 1));
            }
            return out;
        }
        _ => {}
    }
    // Halved at each level: recursive messages (JSON schemas) stay small.
    let chance = 60usize >> depth;
    for field in &message.fields {
        if rng.below(100) >= chance {
            continue;
        }
        let count = match field.ty {
            FieldType::Map(..) => 1 + rng.below(3),
            _ if field.repeated => 1 + rng.below(3),
            _ => 1,
        };
        for _ in 0..count {
            random_value(schema, field.number, &field.ty, rng, depth, &mut out);
        }
    }
    out
}

fn random_value(
    schema: &Schema,
    number: u32,
    ty: &FieldType,
    rng: &mut Rng,
    depth: usize,
    out: &mut Vec<u8>,
) {
    match ty {
        FieldType::Scalar(scalar) => random_scalar(*scalar, number, rng, out),
        FieldType::Message(inner) if depth < RANDOM_DEPTH => {
            put_bytes(out, number, &random_message(schema, *inner, rng, depth + 1));
        }
        FieldType::Message(_) => {}
        // An entry without its value would be one with the value's zero, which a special form
        // may not have.
        FieldType::Map(_, value)
            if depth >= RANDOM_DEPTH && matches!(**value, FieldType::Message(_)) => {}
        FieldType::Map(_, value) => {
            let mut entry = Vec::new();
            put_bytes(&mut entry, 1, rng.pick(&["a", "b", "app", ""]).as_bytes());
            random_value(schema, 2, value, rng, depth, &mut entry);
            put_bytes(out, number, &entry);
        }
    }
}

fn random_scalar(scalar: Scalar, number: u32, rng: &mut Rng, out: &mut Vec<u8>) {
    let long = "x".repeat(200);
    match scalar {
        Scalar::String | Scalar::Bytes => {
            let text = *rng.pick(&["", "a", "web-0", "ü", long.as_str()]);
            put_bytes(out, number, text.as_bytes());
        }
        Scalar::Bool => {
            put_tag(out, number, crate::wire::VARINT);
            put_varint(out, rng.next() % 2);
        }
        Scalar::Double => {
            put_tag(out, number, FIXED64);
            let n = *rng.pick(&[0.0f64, 1.5, -2.25]);
            out.extend_from_slice(&n.to_bits().to_le_bytes());
        }
        Scalar::Int32 => {
            put_tag(out, number, crate::wire::VARINT);
            let n = *rng.pick(&[0i32, 1, -1, 300, i32::MAX, i32::MIN]);
            put_varint(out, i64::from(n) as u64);
        }
        _ => {
            put_tag(out, number, crate::wire::VARINT);
            put_varint(out, *rng.pick(&[0i64, 1, -1, 1 << 40, i64::MIN]) as u64);
        }
    }
}
