use super::*;

fn parse_ok(text: &str) -> ProtoFile {
    match parse(Path::new("t.proto"), text) {
        Ok(file) => file,
        Err(e) => panic!("{e}"),
    }
}

fn parse_err(text: &str) -> String {
    match parse(Path::new("t.proto"), text) {
        Ok(file) => panic!("parsed: {file:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reads_package_option_messages_and_fields() {
    let file = parse_ok(
        "/* licence\n   text */\n\nsyntax = \"proto2\";\npackage example.zoo.v2;\n\
         import \"example/other.proto\";\noption go_package = \"example.com/zoo/v2\";\n\n\
         // Cage holds animals.\nmessage Cage {\n  // the label // with slashes\n\
         optional string label = 1;\n\n  repeated .example.other.Animal animals = 3;\n\
         map<string, Keeper> keepers = 2;\n  optional sint64 size = 4; // trailing\n}\n\
         message Keeper {}\n",
    );
    assert_eq!(file.package, "example.zoo.v2");
    assert_eq!(file.go_package.as_deref(), Some("example.com/zoo/v2"));
    let names: Vec<&str> = file.messages.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Cage", "Keeper"]);
    let cage = &file.messages[0];
    assert!(!cage.wrapper);
    assert_eq!(
        cage.fields,
        [
            Field {
                number: 1,
                name: "label".into(),
                repeated: false,
                ty: FieldType::Scalar("string"),
            },
            Field {
                number: 3,
                name: "animals".into(),
                repeated: true,
                ty: FieldType::Message(".example.other.Animal".into()),
            },
            Field {
                number: 2,
                name: "keepers".into(),
                repeated: false,
                ty: FieldType::Map("string", Box::new(FieldType::Message("Keeper".into()))),
            },
            Field {
                number: 4,
                name: "size".into(),
                repeated: false,
                ty: FieldType::Scalar("sint64"),
            },
        ]
    );
}

#[test]
fn the_nullable_marker_must_lead_the_message() {
    let file = parse_ok(
        "package p;\n// Tags hides a list.\n//\n// +protobuf.nullable=true\n// +other=x\n\
         message Tags {\n  repeated string items = 1;\n}\n\n// +protobuf.nullable=true\n\n\
         message Detached {\n  repeated string items = 1;\n}\n",
    );
    assert!(file.messages[0].wrapper);
    assert!(
        !file.messages[1].wrapper,
        "a blank line detaches the marker"
    );
}

#[test]
fn errors_name_the_line() {
    let err = parse_err("package p;\nmessage A {\n  required string x = 1;\n}\n");
    assert!(err.contains("t.proto:3:"), "{err}");
    assert!(err.contains("unsupported label"), "{err}");
    let err = parse_err("package p;\nmessage A {\n  message B {\n}\n}\n");
    assert!(err.contains("t.proto:3:"), "{err}");
    let err = parse_err("package p;\nenum Colour {\n}\n");
    assert!(err.contains("t.proto:2:"), "{err}");
    let err =
        parse_err("package p;\nmessage A {\n  optional string x = 1 [deprecated = true];\n}\n");
    assert!(err.contains("t.proto:3:"), "{err}");
    let err = parse_err("syntax = \"proto3\";\npackage p;\n");
    assert!(err.contains("t.proto:1:"), "{err}");
}

#[test]
fn rejects_clashing_fields_and_unclosed_input() {
    let err =
        parse_err("package p;\nmessage A {\n  optional string x = 1;\n  optional bool y = 1;\n}\n");
    assert!(
        err.contains("t.proto:4:") && err.contains("clashes"),
        "{err}"
    );
    assert!(parse_err("package p;\nmessage A {\n").contains("not closed"));
    assert!(parse_err("package p;\n/* open\n").contains("unterminated"));
    assert!(parse_err("message A {}\n").contains("no package"));
}

#[test]
fn comment_markers_inside_strings_are_code() {
    let file = parse_ok("package p;\noption go_package = \"a//b/*c\"; /* x */ // y\n");
    assert_eq!(file.go_package.as_deref(), Some("a//b/*c"));
}
