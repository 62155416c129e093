//! Query-string parsing for list, watch and write requests.

/// Decodes `application/x-www-form-urlencoded` text (`+` is a space, `%XX` a byte).
pub(crate) fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes a query value.
#[cfg(test)]
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The list/watch options of one request.
#[derive(Debug, Default, Clone)]
pub(crate) struct Params {
    pub(crate) watch: bool,
    pub(crate) resource_version: Option<String>,
    pub(crate) resource_version_match: Option<String>,
    pub(crate) limit: Option<i64>,
    pub(crate) continue_token: Option<String>,
    pub(crate) label_selector: Option<String>,
    pub(crate) field_selector: Option<String>,
    pub(crate) allow_bookmarks: bool,
    pub(crate) timeout_seconds: Option<u64>,
    pub(crate) send_initial_events: Option<bool>,
    /// `includeObject`: what a Table's rows carry of their objects.
    pub(crate) include_object: Option<String>,
    /// Set on a bad value, reported as 400 by the handler.
    pub(crate) error: Option<String>,
}

fn truthy(v: &str) -> bool {
    matches!(v, "true" | "1" | "True" | "TRUE")
}

impl Params {
    pub(crate) fn parse(query: Option<&str>) -> Self {
        let mut p = Self::default();
        for pair in query.unwrap_or("").split('&').filter(|s| !s.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode(v);
            match k {
                "watch" => p.watch = truthy(&v),
                "resourceVersion" => p.resource_version = Some(v),
                "resourceVersionMatch" => {
                    p.resource_version_match = Some(v).filter(|s| !s.is_empty())
                }
                "limit" => match v.parse() {
                    Ok(n) => p.limit = Some(n),
                    Err(_) => p.error = Some(format!("invalid limit: {v}")),
                },
                "continue" => p.continue_token = Some(v).filter(|s| !s.is_empty()),
                "labelSelector" => p.label_selector = Some(v),
                "fieldSelector" => p.field_selector = Some(v),
                "allowWatchBookmarks" => p.allow_bookmarks = truthy(&v),
                "timeoutSeconds" => match v.parse() {
                    Ok(n) => p.timeout_seconds = Some(n),
                    Err(_) => p.error = Some(format!("invalid timeoutSeconds: {v}")),
                },
                "sendInitialEvents" => p.send_initial_events = Some(truthy(&v)),
                "includeObject" => p.include_object = Some(v),
                _ => {}
            }
        }
        p
    }

    /// The resourceVersion, with an absent one read as `""`.
    pub(crate) fn rv(&self) -> &str {
        self.resource_version.as_deref().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_list_and_watch_options() {
        let p = Params::parse(Some(
            "watch=1&resourceVersion=12&labelSelector=app%3Dweb%2Ctier+in+(a)&limit=5&allowWatchBookmarks=true",
        ));
        assert!(p.watch && p.allow_bookmarks);
        assert_eq!(p.rv(), "12");
        assert_eq!(p.label_selector.as_deref(), Some("app=web,tier in (a)"));
        assert_eq!(p.limit, Some(5));
        assert_eq!(decode(&encode("a=b,c\u{0}")), "a=b,c\u{0}");
        assert_eq!(decode("50%"), "50%");
    }
}
