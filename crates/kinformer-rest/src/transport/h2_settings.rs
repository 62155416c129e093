//! [`SettingsReader`]: the server's HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`, read from the bytes
//! of a connection as they pass by.
//!
//! hyper obeys the server's stream limit but keeps it to itself: a request past it waits inside
//! the connection until a stream ends, which for a connection full of watches is minutes. The
//! pool needs the limit to send such a request over another connection instead, as Go's transport
//! does, so the connection's reads are followed frame by frame: headers are parsed, payloads other
//! than SETTINGS are skipped by length.

/// The HTTP/2 frame header: 24-bit length, type, flags, 31-bit stream id.
const HEADER_LEN: usize = 9;
const TYPE_SETTINGS: u8 = 0x4;
const FLAG_ACK: u8 = 0x1;
const SETTINGS_MAX_CONCURRENT_STREAMS: u16 = 0x3;
/// A SETTINGS payload larger than this is not buffered (its limit, if any, is then missed; real
/// servers send a few parameters of six bytes each).
const MAX_SETTINGS_PAYLOAD: usize = 1 << 12;

/// What a SETTINGS frame from the server said about concurrent streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamLimit {
    /// The frame set `SETTINGS_MAX_CONCURRENT_STREAMS` to this value.
    Set(u32),
    /// The frame did not mention it: the previous value stands (unlimited on a first frame).
    Unchanged,
}

/// Follows the frames a server sends and reports each SETTINGS frame's stream limit.
#[derive(Debug, Default)]
pub(crate) struct SettingsReader {
    header: [u8; HEADER_LEN],
    header_filled: usize,
    /// Payload bytes of the current frame still to come.
    payload_left: usize,
    /// The current frame's payload, when it is a SETTINGS frame worth reading.
    settings: Option<Vec<u8>>,
}

impl SettingsReader {
    /// Consumes `bytes` read from the server; calls `found` once per complete SETTINGS frame
    /// (not its acknowledgements), in order.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], mut found: impl FnMut(StreamLimit)) {
        while !bytes.is_empty() {
            if self.header_filled < HEADER_LEN {
                let take = (HEADER_LEN - self.header_filled).min(bytes.len());
                self.header[self.header_filled..self.header_filled + take]
                    .copy_from_slice(&bytes[..take]);
                self.header_filled += take;
                bytes = &bytes[take..];
                if self.header_filled == HEADER_LEN {
                    self.start_payload(&mut found);
                }
                continue;
            }
            let take = self.payload_left.min(bytes.len());
            if let Some(settings) = &mut self.settings {
                settings.extend_from_slice(&bytes[..take]);
            }
            self.payload_left -= take;
            bytes = &bytes[take..];
            if self.payload_left == 0 {
                self.finish_payload(&mut found);
            }
        }
    }

    fn start_payload(&mut self, found: &mut impl FnMut(StreamLimit)) {
        let [l0, l1, l2, kind, flags, ..] = self.header;
        self.payload_left = usize::from(l0) << 16 | usize::from(l1) << 8 | usize::from(l2);
        let is_settings = kind == TYPE_SETTINGS && flags & FLAG_ACK == 0;
        self.settings = (is_settings && self.payload_left <= MAX_SETTINGS_PAYLOAD)
            .then(|| Vec::with_capacity(self.payload_left));
        if self.payload_left == 0 {
            self.finish_payload(found);
        }
    }

    fn finish_payload(&mut self, found: &mut impl FnMut(StreamLimit)) {
        self.header_filled = 0;
        if let Some(payload) = self.settings.take() {
            found(stream_limit(&payload));
        }
    }
}

/// The last `SETTINGS_MAX_CONCURRENT_STREAMS` among a SETTINGS payload's parameters.
fn stream_limit(payload: &[u8]) -> StreamLimit {
    payload
        .chunks_exact(6)
        .rev()
        .find(|p| u16::from_be_bytes([p[0], p[1]]) == SETTINGS_MAX_CONCURRENT_STREAMS)
        .map_or(StreamLimit::Unchanged, |p| {
            StreamLimit::Set(u32::from_be_bytes([p[2], p[3], p[4], p[5]]))
        })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn frame(kind: u8, flags: u8, payload: &[u8]) -> Vec<u8> {
        let len = payload.len();
        let mut out = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(payload);
        out
    }

    fn settings(params: &[(u16, u32)]) -> Vec<u8> {
        let payload: Vec<u8> = params
            .iter()
            .flat_map(|(id, v)| id.to_be_bytes().into_iter().chain(v.to_be_bytes()))
            .collect();
        frame(TYPE_SETTINGS, 0, &payload)
    }

    /// A server's opening: SETTINGS with a window size and 100 streams, a WINDOW_UPDATE, the
    /// acknowledgement of the client's SETTINGS, HEADERS and DATA, then new SETTINGS.
    fn conversation() -> Vec<u8> {
        let mut bytes = settings(&[(0x4, 1 << 20), (0x3, 100)]);
        bytes.extend(frame(0x8, 0, &[0, 0x10, 0, 0]));
        bytes.extend(frame(TYPE_SETTINGS, FLAG_ACK, &[]));
        bytes.extend(frame(0x1, 0x4, &[0x88; 40]));
        bytes.extend(frame(0x0, 0x1, &vec![b'x'; 70_000]));
        bytes.extend(settings(&[(0x1, 4096)]));
        bytes.extend(settings(&[(0x3, 250)]));
        bytes
    }

    fn read_all(chunks: impl IntoIterator<Item = Vec<u8>>) -> Vec<StreamLimit> {
        let mut reader = SettingsReader::default();
        let mut seen = Vec::new();
        for chunk in chunks {
            reader.feed(&chunk, |limit| seen.push(limit));
        }
        seen
    }

    const EXPECTED: [StreamLimit; 3] = [
        StreamLimit::Set(100),
        StreamLimit::Unchanged,
        StreamLimit::Set(250),
    ];

    #[test]
    fn reports_every_settings_frame_but_acknowledgements() {
        assert_eq!(read_all([conversation()]), EXPECTED);
    }

    #[test]
    fn an_empty_settings_frame_leaves_the_limit_unchanged() {
        assert_eq!(read_all([settings(&[])]), [StreamLimit::Unchanged]);
    }

    proptest! {
        #[test]
        fn any_split_of_the_bytes_reads_the_same(cuts in prop::collection::vec(0usize..71_000, 0..12)) {
            let bytes = conversation();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % bytes.len()).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                chunks.push(bytes[from..cut].to_vec());
                from = cut;
            }
            prop_assert_eq!(read_all(chunks), EXPECTED);
        }
    }
}
