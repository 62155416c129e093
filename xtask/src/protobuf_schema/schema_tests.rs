use std::path::{Path, PathBuf};

use super::*;
use crate::protobuf_schema::{go_source, proto};

/// Two packages: `zoo.base.v1` (Go `example.com/base/v1`, no group) and `zoo.pets.v2` (Go
/// `example.com/pets/v2`, group `pets.example.com`), whose Go side aliases one type.
fn fixture() -> (Vec<Input>, GoIndex) {
    let base = "package zoo.base.v1;\noption go_package = \"example.com/base/v1\";\n\
        message Stamp {\n  optional int64 seconds = 1;\n}\n\
        // +protobuf.nullable=true\nmessage Words {\n  repeated string items = 1;\n}\n";
    let pets = "package zoo.pets.v2;\noption go_package = \"example.com/pets/v2\";\n\
        message Pet {\n  optional Paws paws = 3;\n  optional string name = 1;\n\
        optional .zoo.base.v1.Stamp born = 2;\n  map<string, base.v1.Words> tricks = 4;\n\
        repeated int32 scores = 5;\n  optional string ref = 6;\n}\n\
        message Paws {\n  optional int32 count = 1;\n}\n\
        message Orphan {\n  optional string lost = 1;\n}\n";
    let pets_go = concat!(
        "package v2\n",
        "import base \"example.com/base/v1\"\n",
        "type Pet struct {\n",
        "\tName string `json:\"name\" protobuf:\"bytes,1,opt,name=name\"`\n",
        "\tBorn *base.Stamp `json:\"born,omitempty\" protobuf:\"bytes,2,opt,name=born\"`\n",
        "\tPaws `json:\"\" protobuf:\"bytes,3,opt,name=paws\"`\n",
        "\tTricks map[string]base.Words `json:\"tricks,omitempty\" protobuf:\"bytes,4,rep,name=tricks\"`\n",
        "\tScores []int32 `json:\"scores\" protobuf:\"varint,5,rep,name=score\"`\n",
        "\tRef string `json:\"$ref\" protobuf:\"bytes,6,opt,name=ref\"`\n",
        "}\n",
        "type Paws = base.Paws\n",
    );
    let base_go = "package v1\ntype Paws struct {\n\tCount *int32 `json:\"count,omitempty\" protobuf:\"varint,1,opt,name=count\"`\n}\n\
        type Words []string\ntype Stamp struct {\n\tSeconds int64 `json:\"seconds\" protobuf:\"varint,1,opt,name=seconds\"`\n}\n";
    let mut go = GoIndex::default();
    for (path, source) in [
        ("example.com/base/v1", base_go),
        ("example.com/pets/v2", pets_go),
    ] {
        let file = match go_source::parse(source) {
            Ok(file) => file,
            Err(e) => panic!("{e:?}"),
        };
        if let Err(e) = go.add(path, &[(PathBuf::from("x.go"), file)]) {
            panic!("{e}");
        }
    }
    let input = |text: &str, api_version: &str, go_path: &str| Input {
        proto: match proto::parse(Path::new("x.proto"), text) {
            Ok(file) => file,
            Err(e) => panic!("{e}"),
        },
        api_version: api_version.to_owned(),
        go_path: go_path.to_owned(),
    };
    let inputs = vec![
        input(pets, "pets.example.com/v2", "example.com/pets/v2"),
        input(base, "-", "example.com/base/v1"),
    ];
    (inputs, go)
}

#[test]
fn joins_resolves_and_renders_in_order() {
    let (inputs, go) = fixture();
    let (packages, findings) = match build(&inputs, &go) {
        Ok(built) => built,
        Err(e) => panic!("{e}"),
    };
    let text = render(&["made from test snippets".to_owned()], &packages);
    let expected = "\
# made from test snippets
package zoo.base.v1 -
message Stamp
1 seconds int64
message Words wrapper
1 items string repeated
package zoo.pets.v2 pets.example.com/v2
message Orphan
1 lost string
message Paws
1 count int32 ptr omitempty
message Pet
1 name string
2 born zoo.base.v1.Stamp ptr omitempty
3 paws zoo.pets.v2.Paws inline
4 tricks map<string,zoo.base.v1.Words> omitempty
5 scores int32 repeated
6 $ref string
";
    assert_eq!(text, expected);
    assert_eq!(
        findings.unjoined,
        ["zoo.pets.v2.Orphan field 1 (lost): no Go struct"]
    );
    assert_eq!(findings.inline, ["zoo.pets.v2.Pet field 3 (paws)"]);
    assert_eq!(
        findings.renamed,
        ["zoo.pets.v2.Pet field 6 (ref) is \"$ref\" in JSON"]
    );
    assert_eq!(
        findings.mismatched,
        ["zoo.pets.v2.Pet field 5 (scores) at x.go:8"]
    );
}

#[test]
fn unresolved_types_duplicates_and_bad_wrappers_are_errors() {
    let (mut inputs, go) = fixture();
    inputs[0].proto.messages[0].fields[0].ty = proto::FieldType::Message("Claws".into());
    let err = build(&inputs, &go).map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(
        err,
        Err(
            "protobuf-schema: field paws of zoo.pets.v2.Pet: type Claws resolves to no message"
                .into()
        )
    );

    let (mut inputs, go) = fixture();
    inputs[1].proto.package = "zoo.pets.v2".into();
    assert!(matches!(build(&inputs, &go), Err(Error::Duplicate(_))));

    let (mut inputs, go) = fixture();
    inputs[1].proto.messages[0].wrapper = true;
    assert!(matches!(build(&inputs, &go), Err(Error::BadWrapper { .. })));
}

#[test]
fn relative_names_resolve_from_the_innermost_scope() {
    let known: BTreeSet<String> = ["a.b.X", "a.X", "a.b.c.Y", "Z"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(resolve(&known, "a.b.c", "X").as_deref(), Some("a.b.X"));
    assert_eq!(resolve(&known, "a.b.c", "c.Y").as_deref(), Some("a.b.c.Y"));
    assert_eq!(resolve(&known, "a.b.c", "Z").as_deref(), Some("Z"));
    assert_eq!(resolve(&known, "a.b.c", ".a.X").as_deref(), Some("a.X"));
    assert_eq!(resolve(&known, "a.b.c", ".X"), None);
    assert_eq!(resolve(&known, "q", "Y"), None);
}
