//! The JSON list codec's scanner state: where it is in the top-level object, and how far one
//! member value has been scanned (so a value cut by a chunk boundary resumes where it stopped).

/// Where the scanner is in the top-level object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Before the opening `{`.
    Start,
    /// Expecting a member key (or `}` when `first`).
    Key { first: bool },
    /// After a key, expecting `:`.
    Colon(Member),
    /// Expecting the first byte of a member value.
    ValueStart(Member),
    /// Inside a member value (not `items` elements).
    Value(Member),
    /// Inside `items`: expecting an element (or `]` when `first`).
    ItemStart { first: bool },
    /// Inside an element of `items`.
    Item,
    /// After an element: `,` or `]`.
    AfterItem,
    /// After a member value: `,` or `}`.
    AfterMember,
    /// After the closing `}`.
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Member {
    Items,
    Metadata,
    Other,
}

/// Reads the member name whose opening `"` is at `pos`: the member and the position after the
/// closing `"`, or `None` when the name is not complete yet.
pub(super) fn read_key(buf: &[u8], pos: usize) -> Option<(Member, usize)> {
    let body = &buf[pos + 1..];
    let mut i = 0;
    while let Some(off) = memchr::memchr2(b'"', b'\\', body.get(i..).unwrap_or_default()) {
        i += off;
        if body[i] == b'\\' {
            // The escaped byte may not have arrived yet; then the key is incomplete.
            i += 2;
            continue;
        }
        let member = match &body[..i] {
            b"items" => Member::Items,
            b"metadata" => Member::Metadata,
            _ => Member::Other,
        };
        return Some((member, pos + 1 + i + 1));
    }
    None
}

/// The state of one value being scanned.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ValueScan {
    depth: u32,
    in_string: bool,
    escape: bool,
    /// A scalar (number, `true`, `null`): ends at a delimiter.
    pub(super) scalar: bool,
}

impl ValueScan {
    /// The state for a value whose first byte is `first`.
    pub(super) fn starting_with(first: u8) -> Self {
        Self {
            scalar: !matches!(first, b'{' | b'[' | b'"'),
            ..Self::default()
        }
    }

    /// Scans `buf` from `from` on: how far it got, and the value's end (exclusive) once the
    /// value is complete. Strings are skipped with memchr, since member values such as
    /// annotations are mostly string bytes.
    pub(super) fn scan(&mut self, buf: &[u8], from: usize) -> (usize, Option<usize>) {
        let mut i = from;
        while i < buf.len() {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                    i += 1;
                    continue;
                }
                let Some(off) = memchr::memchr2(b'"', b'\\', &buf[i..]) else {
                    return (buf.len(), None);
                };
                i += off;
                if buf[i] == b'\\' {
                    self.escape = true;
                } else {
                    self.in_string = false;
                    if self.depth == 0 {
                        return (i + 1, Some(i + 1));
                    }
                }
                i += 1;
                continue;
            }
            let b = buf[i];
            if self.scalar {
                if matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace() {
                    return (i, Some(i));
                }
                i += 1;
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return (i + 1, Some(i + 1));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        (i, None)
    }
}

#[cfg(test)]
mod tests {
    use super::ValueScan;

    /// Scans `value` cut into pieces of `piece` bytes, as chunks would arrive.
    fn scan_in_pieces(value: &[u8], piece: usize) -> Option<usize> {
        let mut scan = ValueScan::starting_with(value[0]);
        let mut pos = 0;
        for end in (piece..value.len() + piece).step_by(piece) {
            let (reached, done) = scan.scan(&value[..end.min(value.len())], pos);
            pos = reached;
            if done.is_some() {
                return done;
            }
        }
        None
    }

    #[test]
    fn finds_the_end_of_nested_values_and_strings_in_any_chunking() {
        let object = br#"{"a":["}",{"b":"\"}"}],"c":1} ,"#;
        let string = br#""x\"y\\" ,"#;
        for piece in 1..=object.len() {
            assert_eq!(
                scan_in_pieces(object, piece),
                Some(object.len() - 2),
                "{piece}"
            );
        }
        for piece in 1..=string.len() {
            assert_eq!(
                scan_in_pieces(string, piece),
                Some(string.len() - 2),
                "{piece}"
            );
        }
    }

    #[test]
    fn a_scalar_ends_at_a_delimiter_and_waits_without_one() {
        assert_eq!(scan_in_pieces(b"12345,", 2), Some(5));
        assert_eq!(scan_in_pieces(b"true}", 1), Some(4));
        assert_eq!(scan_in_pieces(b"null", 4), None);
    }
}
