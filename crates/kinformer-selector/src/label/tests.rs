use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;

use super::*;

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn each_operator_matches_like_the_apiserver() {
    let set = labels(&[("app", "web"), ("version", "3"), ("x.io/tier", "front")]);
    let yes = [
        "",
        "app=web",
        "app==web",
        "app!=api",
        "missing!=x",
        "app in (web,api)",
        "app notin (api)",
        "missing notin (a)",
        "app",
        "!missing",
        "version>2",
        "version<4",
        "x.io/tier=front",
        "app=web,version>0",
        "  app  =  web , version in ( 3 )  ",
    ];
    for s in yes {
        assert!(LabelSelector::parse(s).unwrap().matches(&set), "{s:?}");
    }
    let no = [
        "app=api",
        "app!=web",
        "app in (api)",
        "app notin (web)",
        "missing",
        "!app",
        "version>3",
        "version<3",
        "app>1",
        "missing<5",
        "missing=",
        "app=web,version=2",
    ];
    for s in no {
        assert!(!LabelSelector::parse(s).unwrap().matches(&set), "{s:?}");
    }
}

#[test]
fn sources_other_than_btreemap() {
    let selector = LabelSelector::parse("a=1,!b").unwrap();
    let hash: HashMap<String, String> = HashMap::from([("a".into(), "1".into())]);
    assert!(selector.matches(&hash));
    assert!(selector.matches(Some(&hash)));
    assert!(!selector.matches(None::<&HashMap<String, String>>));
    assert!(
        LabelSelector::parse("!x")
            .unwrap()
            .matches(None::<&HashMap<String, String>>)
    );
    let owner = String::from("1");
    assert!(selector.matches(|k: &str| (k == "a").then_some(owner.as_str())));
}

#[test]
fn keywords_are_values_and_keys_where_the_grammar_allows() {
    let selector = LabelSelector::parse("in in (in,notin),notin=in").unwrap();
    assert_eq!(selector.to_string(), "in in (in,notin),notin=in");
    assert!(selector.matches(&labels(&[("in", "notin"), ("notin", "in")])));
}

#[test]
fn empty_values_in_sets_and_exact_matches() {
    let selector = LabelSelector::parse("a in (,),b=,c in (x,)").unwrap();
    assert_eq!(selector.requirements()[0].values(), [""]);
    assert_eq!(selector.requirements()[2].values(), ["", "x"]);
    assert_eq!(selector.to_string(), "a in (,),b=,c in (,x)");
    assert_eq!(
        LabelSelector::parse(&selector.to_string()),
        Ok(selector.clone())
    );
    assert!(selector.matches(&labels(&[("a", ""), ("b", ""), ("c", "")])));
}

#[test]
fn display_is_canonical() {
    let selector = LabelSelector::parse("z, b notin (y,x,y), a==1, !c").unwrap();
    assert_eq!(selector.to_string(), "a==1,b notin (x,y),!c,z");
    assert!(LabelSelector::parse("").unwrap().is_empty());
}

#[test]
fn errors_carry_the_offending_text() {
    let cases: [(&str, Error); 8] = [
        (
            "a=b c",
            Error::Syntax {
                selector: "a=b c".into(),
                position: 4,
                found: "c".into(),
                expected: "',' or end of string",
            },
        ),
        (
            "a in b",
            Error::Syntax {
                selector: "a in b".into(),
                position: 5,
                found: "b".into(),
                expected: "'('",
            },
        ),
        ("a in ()", Error::EmptyValueSet { key: "a".into() }),
        (
            "a>x",
            Error::NotAnInteger {
                key: "a".into(),
                value: "x".into(),
            },
        ),
        (
            "-a=b",
            Error::InvalidKey {
                key: "-a".into(),
                reason: "name part must consist of alphanumerics, '-', '_' or '.', and begin and end with an alphanumeric",
            },
        ),
        (
            "a=b/c",
            Error::InvalidValue {
                key: "a".into(),
                value: "b/c".into(),
                reason: "must be empty or consist of alphanumerics, '-', '_' or '.', and begin and end with an alphanumeric",
            },
        ),
        (
            "a,",
            Error::Syntax {
                selector: "a,".into(),
                position: 2,
                found: String::new(),
                expected: "identifier after ','",
            },
        ),
        (
            "!a=b",
            Error::Syntax {
                selector: "!a=b".into(),
                position: 2,
                found: "=".into(),
                expected: "',' or end of string after '!key'",
            },
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(LabelSelector::parse(input), Err(expected), "{input:?}");
    }
    for bad in [
        "=a",
        "a=(b)",
        "a in (b c)",
        "a in (b",
        "a ! b",
        "a>-5",
        ",a",
        "a<",
    ] {
        assert!(LabelSelector::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn requirement_new_checks_value_counts() {
    assert!(matches!(
        Requirement::new("a", Operator::Equals, ["1", "2"]),
        Err(Error::WrongValueCount { count: 2, .. })
    ));
    assert!(matches!(
        Requirement::new("a", Operator::Exists, ["1"]),
        Err(Error::WrongValueCount { count: 1, .. })
    ));
    assert!(Requirement::new("a", Operator::LessThan, ["7"]).is_ok());
}

const KEYS: [&str; 4] = ["a", "b", "x.io/c", "d-1"];
const VALUES: [&str; 5] = ["", "1", "2", "10", "v"];
const OPS: [Operator; 9] = [
    Operator::Equals,
    Operator::DoubleEquals,
    Operator::NotEquals,
    Operator::In,
    Operator::NotIn,
    Operator::Exists,
    Operator::DoesNotExist,
    Operator::GreaterThan,
    Operator::LessThan,
];

fn requirement() -> impl Strategy<Value = Requirement> {
    (
        0..KEYS.len(),
        0..OPS.len(),
        prop::collection::vec(0..VALUES.len(), 1..4),
        -3i64..12,
    )
        .prop_map(|(key, op, values, bound)| {
            let operator = OPS[op];
            let values: Vec<String> = match operator {
                Operator::In | Operator::NotIn => {
                    values.iter().map(|v| VALUES[*v].into()).collect()
                }
                Operator::Exists | Operator::DoesNotExist => Vec::new(),
                Operator::GreaterThan | Operator::LessThan => vec![bound.max(0).to_string()],
                _ => vec![VALUES[values[0]].into()],
            };
            Requirement::new(KEYS[key], operator, values).expect("generated requirements are valid")
        })
}

fn label_set() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(
        (0..KEYS.len()).prop_map(|k| KEYS[k].to_owned()),
        (0..VALUES.len()).prop_map(|v| VALUES[v].to_owned()),
        0..KEYS.len(),
    )
}

/// The reference semantics, written as plainly as possible.
fn model(r: &Requirement, labels: &BTreeMap<String, String>) -> bool {
    let value = labels.get(r.key());
    let in_set = |v: &String| r.values().contains(v);
    let as_int = |v: &String| v.parse::<i64>().ok();
    let bound = r.values().first().and_then(as_int);
    match r.operator() {
        Operator::Equals | Operator::DoubleEquals | Operator::In => value.is_some_and(in_set),
        Operator::NotEquals | Operator::NotIn => !value.is_some_and(in_set),
        Operator::Exists => value.is_some(),
        Operator::DoesNotExist => value.is_none(),
        Operator::GreaterThan => {
            matches!((value.and_then(as_int), bound), (Some(v), Some(b)) if v > b)
        }
        Operator::LessThan => {
            matches!((value.and_then(as_int), bound), (Some(v), Some(b)) if v < b)
        }
    }
}

proptest! {
    #[test]
    fn parse_display_round_trips(requirements in prop::collection::vec(requirement(), 0..5)) {
        let selector = LabelSelector::from_requirements(requirements);
        let text = selector.to_string();
        prop_assert_eq!(LabelSelector::parse(&text), Ok(selector));
        prop_assert_eq!(LabelSelector::parse(&text).map(|s| s.to_string()), Ok(text));
    }

    #[test]
    fn matching_agrees_with_the_model(
        requirements in prop::collection::vec(requirement(), 0..4),
        labels in label_set(),
    ) {
        let selector = LabelSelector::from_requirements(requirements);
        let expected = selector.requirements().iter().all(|r| model(r, &labels));
        prop_assert_eq!(selector.matches(&labels), expected);
        let lookup = |k: &str| labels.get(k).map(String::as_str);
        prop_assert_eq!(selector.matches(lookup), expected);
    }

    #[test]
    fn parse_never_panics(input in r"[a-zé!=<>(), 0-9/.\t-]{0,20}") {
        let _ = LabelSelector::parse(&input);
    }
}
