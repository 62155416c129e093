//! Choosing the media type of an OpenAPI document as kube-openapi's handlers do: the Accept
//! header parsed and ordered the way goautoneg orders it, then the first clause that matches
//! a served type wins. The comparison is exact and case-sensitive, parameters are ignored, and
//! a `q` of zero still matches (goautoneg keeps such clauses).

use http::{HeaderMap, header};

/// The forms an OpenAPI document is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Json,
    Protobuf,
}

/// A served media type: the subtype a clause must name (under `application/`), its form, and
/// the `Content-Type` answered with it.
pub(super) type Offer = (&'static str, Form, &'static str);

/// The `Content-Type` of `/openapi/v2` in protobuf: the dotted spelling, whichever of the two
/// the client asked for.
pub(super) const PROTOBUF_V2: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// `/openapi/v2`'s offers, in kube-openapi's order: JSON, then the protobuf subtype client-go
/// asks for (with `@`), then the dotted one.
pub(super) const V2_OFFERS: [Offer; 3] = [
    ("json", Form::Json, "application/json"),
    (
        "com.github.proto-openapi.spec.v2@v1.0+protobuf",
        Form::Protobuf,
        PROTOBUF_V2,
    ),
    (
        "com.github.proto-openapi.spec.v2.v1.0+protobuf",
        Form::Protobuf,
        PROTOBUF_V2,
    ),
];

/// What the sim offers for an `/openapi/v3` group version: JSON only. kube-apiserver also offers
/// gnostic's `openapi.v3.Document` in protobuf, which the sim does not encode, so a client that
/// accepts nothing else is answered 406.
pub(super) const V3_OFFERS: [Offer; 1] = [("json", Form::Json, "application/json")];

/// One media range of an Accept header.
#[derive(Debug, Clone, PartialEq)]
struct Clause<'a> {
    kind: &'a str,
    subtype: &'a str,
    quality: f64,
}

/// The offer the request's Accept header selects, `None` when it selects none (kube-openapi then
/// answers 406). No Accept header means `*/*`.
pub(super) fn choose(headers: &HeaderMap, offers: &[Offer]) -> Option<Offer> {
    // Go's `Header.Get` reads the first Accept header only.
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .unwrap_or("*/*");
    parse(accept).into_iter().find_map(|clause| {
        offers.iter().copied().find(|(subtype, _, _)| {
            (clause.kind == "application" || clause.kind == "*")
                && (clause.subtype == *subtype || clause.subtype == "*")
        })
    })
}

/// goautoneg's `ParseAccept`: clauses split on commas, a bare `*` read as `*/*`, anything else
/// without exactly one slash dropped, `q` read as a number (0 when it is not one), then sorted.
fn parse(accept: &str) -> Vec<Clause<'_>> {
    let mut clauses: Vec<Clause<'_>> = Vec::new();
    for part in accept.split(',') {
        let mut pieces = part.trim_matches(' ').split(';');
        let range = pieces.next().unwrap_or_default();
        let halves: Vec<&str> = range.split('/').collect();
        let (kind, subtype) = match halves.as_slice() {
            [kind] if kind.trim_matches(' ') == "*" => ("*", "*"),
            [kind, subtype] => (kind.trim_matches(' '), subtype.trim_matches(' ')),
            _ => continue,
        };
        let mut quality = 1.0;
        for parameter in pieces {
            if let Some((name, value)) = parameter.split_once('=')
                && name.trim_matches(' ') == "q"
            {
                quality = value.parse::<f32>().map_or(0.0, f64::from);
            }
        }
        clauses.push(Clause {
            kind,
            subtype,
            quality,
        });
    }
    // Go's sort.Sort on so short a list is an insertion sort, with goautoneg's comparison:
    // higher quality first, then a concrete type before `*`, then a concrete subtype before `*`.
    for i in 1..clauses.len() {
        let mut j = i;
        while j > 0 && before(&clauses[j], &clauses[j - 1]) {
            clauses.swap(j, j - 1);
            j -= 1;
        }
    }
    clauses
}

fn before(a: &Clause<'_>, b: &Clause<'_>) -> bool {
    a.quality > b.quality
        || (a.kind != "*" && b.kind == "*")
        || (a.subtype != "*" && b.subtype == "*")
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn chosen(accept: Option<&str>) -> Option<Form> {
        let mut headers = HeaderMap::new();
        if let Some(accept) = accept {
            headers.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap());
        }
        choose(&headers, &V2_OFFERS).map(|(_, form, _)| form)
    }

    #[test]
    fn the_first_matching_clause_in_goautoneg_order_wins() {
        let proto = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
        assert_eq!(chosen(Some(proto)), Some(Form::Protobuf));
        assert_eq!(
            chosen(Some(
                "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
            )),
            Some(Form::Protobuf)
        );
        assert_eq!(
            chosen(Some(&format!("{proto}, application/json"))),
            Some(Form::Protobuf)
        );
        assert_eq!(
            chosen(Some(&format!("application/json;q=0.9, {proto}"))),
            Some(Form::Protobuf)
        );
        assert_eq!(chosen(Some("*/*")), Some(Form::Json));
        assert_eq!(chosen(None), Some(Form::Json));
        assert_eq!(chosen(Some("application/*")), Some(Form::Json));
        assert_eq!(chosen(Some(&format!("*/*, {proto}"))), Some(Form::Protobuf));
        // goautoneg keeps a clause whose q is zero.
        assert_eq!(chosen(Some("application/json;q=0")), Some(Form::Json));
    }

    #[test]
    fn nothing_served_is_none() {
        assert_eq!(chosen(Some("application/yaml")), None);
        assert_eq!(chosen(Some("text/html, application/xml")), None);
        assert_eq!(chosen(Some("application/vnd.kubernetes.protobuf")), None);
        // Exact, case-sensitive comparison.
        assert_eq!(chosen(Some("Application/JSON")), None);
    }
}
