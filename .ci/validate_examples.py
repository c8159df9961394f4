"""Validate example scenes and the document's own examples against openapi.yaml.

Usage: python .ci/validate_examples.py openapi.yaml examples/*.json

Every file given is checked against the Scene schema; every `example` and
`examples` value inside the document is checked against the schema it
illustrates. Exits 1 (listing each error with its JSON path) when any fails.
Needs PyYAML, jsonschema and referencing (all installed with
openapi-spec-validator).
"""
import json
import sys

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012


def main(argv):
    spec_path, files = argv[1], argv[2:]
    with open(spec_path) as f:
        doc = yaml.safe_load(f)
    registry = Registry().with_resource(
        "urn:api", Resource.from_contents(doc, default_specification=DRAFT202012))
    checked = 0
    failures = 0

    def check(schema_name, instance, where):
        nonlocal checked, failures
        checked += 1
        validator = Draft202012Validator(
            {"$ref": f"urn:api#/components/schemas/{schema_name}"}, registry=registry)
        for error in validator.iter_errors(instance):
            failures += 1
            path = "/" + "/".join(str(p) for p in error.absolute_path)
            print(f"{where}: {schema_name} at {path}: {error.message[:300]}")

    for name in files:
        with open(name) as f:
            check("Scene", json.load(f), name)

    components = doc["components"]
    for name, schema in components["schemas"].items():
        if "example" in schema:
            check(name, schema["example"], f"#/components/schemas/{name}/example")
    for name, example in components.get("examples", {}).items():
        # Component examples are all scenes in this document.
        check("Scene", example["value"], f"#/components/examples/{name}")

    def walk(node, where):
        if isinstance(node, dict):
            schema = node.get("schema")
            ref = schema.get("$ref") if isinstance(schema, dict) else None
            if ref and ref.startswith("#/components/schemas/"):
                target = ref.rsplit("/", 1)[1]
                if "example" in node:
                    check(target, node["example"], where + "/example")
                for key, ex in node.get("examples", {}).items():
                    if "value" in ex:
                        check(target, ex["value"], f"{where}/examples/{key}")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    walk(doc["paths"], "#/paths")
    walk(components["responses"], "#/components/responses")
    print(f"{checked} examples checked, {failures} errors")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
