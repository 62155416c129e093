//! The small schema the encoder and decoder tests share: one message with a field of every form.

use crate::Schema;

/// `Thing`'s apiVersion and kind, as the tests name it.
pub(crate) const THING: &str = "example.com/v1 Thing";

const SCHEMA: &str = "package t.v1 example.com/v1\n\
    message Thing\n\
    1 name string omitempty\n\
    2 count int32 ptr omitempty\n\
    3 size int64 omitempty\n\
    4 ready bool\n\
    5 tags string repeated omitempty\n\
    6 ports int32 repeated\n\
    7 labels map<string,string>\n\
    8 parts t.v1.Thing repeated\n\
    9 when k8s.io.apimachinery.pkg.apis.meta.v1.Time omitempty\n\
    10 port k8s.io.apimachinery.pkg.util.intstr.IntOrString omitempty\n\
    11 cpu k8s.io.apimachinery.pkg.api.resource.Quantity\n\
    12 raw k8s.io.apimachinery.pkg.runtime.RawExtension ptr\n\
    13 verbs k8s.io.apimachinery.pkg.apis.meta.v1.Verbs\n\
    14 data bytes omitempty\n\
    15 timeout k8s.io.apimachinery.pkg.apis.meta.v1.Duration ptr\n\
    16 ratio double ptr\n\
    package k8s.io.apimachinery.pkg.apis.meta.v1 meta.k8s.io/v1\n\
    message Time\n\
    1 seconds int64\n\
    2 nanos int32\n\
    message Duration\n\
    1 duration int64\n\
    message Verbs wrapper\n\
    1 items string repeated\n\
    package k8s.io.apimachinery.pkg.util.intstr -\n\
    message IntOrString\n\
    1 type int64\n\
    2 intVal int32\n\
    3 strVal string\n\
    package k8s.io.apimachinery.pkg.api.resource -\n\
    message Quantity\n\
    1 string string\n\
    package k8s.io.apimachinery.pkg.runtime -\n\
    message RawExtension\n\
    1 raw bytes\n";

/// The schema with `Thing` in it.
pub(crate) fn thing_schema() -> Schema {
    Schema::parse(SCHEMA).expect("the test schema parses")
}
