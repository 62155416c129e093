//! Messages whose JSON form is not an object of their fields, as Kubernetes' Go types marshal them.

/// A message with its own JSON form; the decoder and encoder translate it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Special {
    /// `meta.v1.Time` (`seconds` = 1, `nanos` = 2): RFC 3339 text to the second; the zero time is
    /// JSON `null`.
    Time,
    /// `meta.v1.MicroTime`: RFC 3339 text with six fractional digits.
    MicroTime,
    /// `meta.v1.Duration` (`duration` = 1, nanoseconds): Go's duration text (`"1h2m3s"`).
    Duration,
    /// `resource.Quantity` (`string` = 1): the quantity's text.
    Quantity,
    /// `intstr.IntOrString` (`type` = 1, `intVal` = 2, `strVal` = 3): a JSON number or string.
    IntOrString,
    /// `runtime.RawExtension`, `meta.v1.FieldsV1`, apiextensions' `JSON`: field 1 holds JSON text,
    /// which is the value.
    RawJson,
    /// apiextensions' `JSONSchemaPropsOrArray` (`schema` = 1, `jSONSchemas` = 2): an object or an
    /// array of them.
    SchemaOrArray,
    /// apiextensions' `JSONSchemaPropsOrBool` (`allows` = 1, `schema` = 2): an object or a bool.
    SchemaOrBool,
    /// apiextensions' `JSONSchemaPropsOrStringArray` (`schema` = 1, `property` = 2): an object or
    /// an array of strings.
    SchemaOrStringArray,
    /// A message marked nullable whose JSON form is its one repeated field `items` (`meta.v1.Verbs`).
    Wrapper,
}

const META: &str = "k8s.io.apimachinery.pkg.apis.meta.v1.";
const APIEXTENSIONS: &str = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.";

impl Special {
    /// The special form of a message, from its full name (and the schema's `wrapper` mark).
    pub(crate) fn of(name: &str, wrapper: bool) -> Option<Self> {
        if wrapper {
            return Some(Self::Wrapper);
        }
        if let Some(short) = name.strip_prefix(META) {
            return match short {
                "Time" => Some(Self::Time),
                "MicroTime" => Some(Self::MicroTime),
                "Duration" => Some(Self::Duration),
                "FieldsV1" => Some(Self::RawJson),
                _ => None,
            };
        }
        if let Some(rest) = name.strip_prefix(APIEXTENSIONS) {
            let short = rest.rsplit('.').next().unwrap_or(rest);
            return match short {
                "JSON" => Some(Self::RawJson),
                "JSONSchemaPropsOrArray" => Some(Self::SchemaOrArray),
                "JSONSchemaPropsOrBool" => Some(Self::SchemaOrBool),
                "JSONSchemaPropsOrStringArray" => Some(Self::SchemaOrStringArray),
                _ => None,
            };
        }
        match name {
            "k8s.io.apimachinery.pkg.runtime.RawExtension" => Some(Self::RawJson),
            "k8s.io.apimachinery.pkg.api.resource.Quantity" => Some(Self::Quantity),
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString" => Some(Self::IntOrString),
            _ => None,
        }
    }
}
