//! `allOf`, `anyOf`, `oneOf` and `not`, value validations only in a structural schema, with
//! kube-openapi's messages (reported without a field, so on `<nil>`).

use serde_json::Value;

use super::node::Node;
use super::validate::{self, Errors};

/// Validates `value` against one member schema on its own.
fn member(schema: &Node, value: &Value, old: Option<&Value>, path: &str) -> Errors {
    let mut errors = Errors::default();
    validate::node(schema, value, old, path, false, &mut errors);
    errors
}

/// Of the failed members, the one whose errors kube-openapi reports: it picks the member that
/// matched most validators; the member with the fewest errors stands for that here.
fn best(failures: Vec<Errors>) -> Option<Errors> {
    failures.into_iter().min_by_key(|errors| errors.0.len())
}

/// Checks the junctors of `node`, in kube-openapi's order: anyOf, oneOf, allOf, not.
pub(super) fn check(node: &Node, value: &Value, old: Option<&Value>, path: &str, out: &mut Errors) {
    let checks = &node.checks;
    if !checks.any_of.is_empty() {
        let mut failures = Vec::new();
        for schema in &checks.any_of {
            let errors = member(schema, value, old, path);
            if errors.is_empty() {
                failures.clear();
                break;
            }
            failures.push(errors);
        }
        if let Some(best) = best(failures) {
            out.push_unplaced(format!(
                "{} must validate at least one schema (anyOf)",
                quote(path)
            ));
            out.extend(best);
        }
    }
    if !checks.one_of.is_empty() {
        let results: Vec<Errors> = checks
            .one_of
            .iter()
            .map(|s| member(s, value, old, path))
            .collect();
        let valid = results.iter().filter(|e| e.is_empty()).count();
        if valid != 1 {
            let found = if valid == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {valid} valid alternatives")
            };
            out.push_unplaced(format!(
                "{} must validate one and only one schema (oneOf). {found}",
                quote(path)
            ));
            if valid == 0
                && let Some(best) = best(results)
            {
                out.extend(best);
            }
        }
    }
    if !checks.all_of.is_empty() {
        let mut valid = 0;
        for schema in &checks.all_of {
            let errors = member(schema, value, old, path);
            valid += usize::from(errors.is_empty());
            out.extend(errors);
        }
        if valid != checks.all_of.len() {
            let none = if valid == 0 { ". None validated" } else { "" };
            out.push_unplaced(format!(
                "{} must validate all the schemas (allOf){none}",
                quote(path)
            ));
        }
    }
    if let Some(schema) = &checks.not
        && member(schema, value, old, path).is_empty()
    {
        out.push_unplaced(format!(
            "{} must not validate the schema (not)",
            quote(path)
        ));
    }
}

/// Go's `%q` of the path.
fn quote(path: &str) -> String {
    super::go_text::quote(path)
}
