//! A custom resource read through another of its CRD's served versions than it was written
//! with: kube-apiserver converts it (`strategy: None` rewrites only `apiVersion`), so the sim
//! answers the stored bytes with the reading version's type meta in place of the stored one.
//! (A built-in served in several versions converts its objects: `crate::conversion`.)

use bytes::{BufMut, Bytes, BytesMut};

use super::EventType;
use super::record::{Record, reframe};
use crate::resource::ResourceDef;

impl Record {
    /// Where the stored type meta (`{"kind":..,"apiVersion":..`) ends in `line`.
    fn type_meta_end(&self) -> usize {
        if self.line.get(self.rest_start.wrapping_sub(1)) == Some(&b',') {
            self.rest_start - 1
        } else {
            self.rest_start
        }
    }

    /// Whether the revision carries `def`'s `kind` and `apiVersion`.
    pub(crate) fn is_typed_as(&self, def: &ResourceDef) -> bool {
        let wanted = format!(
            r#"{{"kind":"{}","apiVersion":"{}""#,
            def.kind,
            def.api_version()
        );
        self.line.get(self.obj_start..self.type_meta_end()) == Some(wanted.as_bytes())
    }

    /// The object as `def` serves it, when that is not how it is stored.
    fn retyped(&self, def: &ResourceDef) -> Option<Bytes> {
        if self.builtin || self.is_typed_as(def) {
            return None;
        }
        let wanted = format!(
            r#"{{"kind":"{}","apiVersion":"{}""#,
            def.kind,
            def.api_version()
        );
        let end = self.type_meta_end();
        let body = &self.line[end..self.line.len() - 2];
        let mut out = BytesMut::with_capacity(wanted.len() + body.len());
        out.put_slice(wanted.as_bytes());
        out.put_slice(body);
        Some(out.freeze())
    }

    /// [`Record::object`] as `def` serves it.
    pub(crate) fn object_for(&self, def: &ResourceDef) -> Bytes {
        self.retyped(def).unwrap_or_else(|| self.object())
    }

    /// [`Record::put_item`] as `def` serves it.
    pub(crate) fn put_item_for(&self, def: &ResourceDef, out: &mut BytesMut) {
        match self.retyped(def) {
            Some(object) => out.put_slice(&object),
            None => self.put_item(out),
        }
    }

    /// [`Record::item_len`] as `def` serves it.
    pub(crate) fn item_len_for(&self, def: &ResourceDef) -> usize {
        self.retyped(def)
            .map_or_else(|| self.item_len(), |o| o.len())
    }

    /// [`Record::line_as`] as `def` serves it.
    pub(crate) fn line_for(&self, def: &ResourceDef, event: EventType) -> Bytes {
        match self.retyped(def) {
            Some(object) => {
                let mut tail = BytesMut::with_capacity(object.len() + 2);
                tail.put_slice(&object);
                tail.put_slice(b"}\n");
                reframe(event, &tail)
            }
            None => self.line_as(event),
        }
    }
}
