//! Go struct tags: the `key:"value"` list, and what the `json` and `protobuf` keys say.

/// What one field's tag says about its JSON and protobuf forms.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldTag {
    /// The JSON name: empty when the tag gives none (or has no `json` key).
    pub(crate) json_name: String,
    /// `json:"...,omitempty"`.
    pub(crate) omitempty: bool,
    /// The protobuf field number; none for `protobuf:"-"` or no `protobuf` key.
    pub(crate) number: Option<u32>,
    /// The protobuf tag's `name=`: the proto field name, to check a join by.
    pub(crate) proto_name: Option<String>,
}

/// Reads a struct tag (its text without the quotes). A tag that does not follow Go's
/// `key:"value"` convention, or a `protobuf` value without a field number, is an error.
pub(crate) fn parse(tag: &str) -> Result<FieldTag, String> {
    let mut result = FieldTag::default();
    for (key, value) in pairs(tag)? {
        match key.as_str() {
            "json" => {
                let mut options = value.split(',');
                result.json_name = options.next().unwrap_or_default().to_owned();
                result.omitempty = options.any(|o| o == "omitempty");
            }
            "protobuf" if value != "-" => {
                // `WIRETYPE,NUMBER[,LABEL],name=...,...`; the label is hand-written and often
                // wrong (go-to-protobuf goes by the Go type), so it is not read.
                let mut parts = value.split(',');
                let number = parts.nth(1).and_then(|n| n.parse().ok());
                if number.is_none() {
                    return Err(format!("protobuf tag {value:?} has no field number"));
                }
                result.number = number;
                result.proto_name = parts
                    .find_map(|p| p.strip_prefix("name="))
                    .map(str::to_owned);
            }
            _ => {}
        }
    }
    Ok(result)
}

/// The `key:"value"` pairs of a tag, values unquoted.
fn pairs(tag: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let bad = || format!("malformed struct tag {tag:?}");
        let colon = rest.find(':').ok_or_else(bad)?;
        let key = &rest[..colon];
        if key.is_empty() || key.contains(|c: char| c.is_whitespace() || c == '"') {
            return Err(bad());
        }
        let quoted = rest[colon + 1..].strip_prefix('"').ok_or_else(bad)?;
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        let end = loop {
            match chars.next() {
                None => return Err(bad()),
                Some((i, '"')) => break i,
                Some((_, '\\')) => value.push(chars.next().ok_or_else(bad)?.1),
                Some((_, c)) => value.push(c),
            }
        };
        pairs.push((key.to_owned(), value));
        rest = quoted[end + 1..].trim_start();
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(text: &str) -> FieldTag {
        match parse(text) {
            Ok(tag) => tag,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn reads_json_name_and_omitempty() {
        let t = tag(r#"json:"depth,omitempty" protobuf:"varint,4,opt,name=depth""#);
        assert_eq!(
            t,
            FieldTag {
                json_name: "depth".into(),
                omitempty: true,
                number: Some(4),
                proto_name: Some("depth".into()),
            }
        );
        let t = tag(r#"json:"colour" protobuf:"bytes,12,rep,name=colours""#);
        assert_eq!(t.json_name, "colour");
        assert!(!t.omitempty);
        assert_eq!(t.number, Some(12));
        assert_eq!(t.proto_name.as_deref(), Some("colours"));
    }

    #[test]
    fn empty_names_dashes_and_missing_keys() {
        let t = tag(r#"json:",inline" protobuf:"bytes,2,opt,name=inner""#);
        assert_eq!((t.json_name.as_str(), t.number), ("", Some(2)));
        let t = tag(r#"json:"-" protobuf:"-""#);
        assert_eq!((t.json_name.as_str(), t.number), ("-", None));
        let t = tag(r#"protobuf:"varint,3,opt,name=kind,casttype=Kind""#);
        assert_eq!(
            (t.json_name.as_str(), t.omitempty, t.number),
            ("", false, Some(3))
        );
        let t = tag(r#"yaml:"x"  other:"a\"b""#);
        assert_eq!(t, FieldTag::default());
        // A label-less tag (an embedded required field) still has its number.
        let t = tag(r#"json:"" protobuf:"bytes,7,req""#);
        assert_eq!((t.number, t.proto_name), (Some(7), None));
    }

    #[test]
    fn malformed_tags_are_errors() {
        for text in [
            r#"json"x""#,
            r#"json:x"#,
            r#"json:"open"#,
            r#" :"x""#,
            r#"protobuf:"bytes""#,
            r#"protobuf:"bytes,two,opt""#,
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
