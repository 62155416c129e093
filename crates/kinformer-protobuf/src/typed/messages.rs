//! The trait impls every generated message shares, by macro: decoding through its
//! `merge_field`, encoding through its `encode_fields`, each as one nested message.

/// Implements [`Field`](super::field::Field) and [`Encode`](super::encode::Encode) for generated
/// messages.
macro_rules! messages {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::typed::encode::Encode for $ty {
            #[inline]
            fn put(
                &self,
                number: u32,
                depth: usize,
                out: &mut Vec<u8>,
            ) -> $crate::error::Result<()> {
                $crate::typed::encode::nested(out, number, depth, |out, depth| {
                    $crate::typed::field::MessageFields::encode_fields(self, depth, out)
                })
            }
        }

        impl $crate::typed::field::Field for $ty {
            fn decode(
                cx: &mut $crate::typed::Cx,
                value: $crate::wire::WireValue<'_>,
            ) -> $crate::error::Result<Self> {
                let mut out = <Self as Default>::default();
                $crate::typed::field::Field::merge(&mut out, cx, value)?;
                Ok(out)
            }

            fn decode_into(
                slot: &mut Option<Self>,
                cx: &mut $crate::typed::Cx,
                value: $crate::wire::WireValue<'_>,
            ) -> $crate::error::Result<()> {
                let out = slot.insert(<Self as Default>::default());
                $crate::typed::field::Field::merge(out, cx, value)
            }

            fn push(
                out: &mut Vec<Self>,
                cx: &mut $crate::typed::Cx,
                value: $crate::wire::WireValue<'_>,
            ) -> $crate::error::Result<()> {
                out.push(<Self as Default>::default());
                match out.last_mut() {
                    Some(last) => $crate::typed::field::Field::merge(last, cx, value),
                    None => Ok(()),
                }
            }

            fn merge(
                &mut self,
                cx: &mut $crate::typed::Cx,
                value: $crate::wire::WireValue<'_>,
            ) -> $crate::error::Result<()> {
                let bytes = $crate::typed::field::bytes(value, stringify!($ty))?;
                $crate::typed::field::merge_message(
                    self,
                    cx,
                    bytes,
                    $crate::typed::field::MessageFields::merge_field,
                )
            }
        }
    )*};
}
pub(crate) use messages;
