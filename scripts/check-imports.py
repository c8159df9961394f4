#!/usr/bin/env python3
"""Every module a target imports from this package is one of its declared
dependencies in Package.swift (not one it reaches through another target).

    python3 scripts/check-imports.py        # from the repository's top level

SwiftPM's --explicit-target-dependency-import-check accepts a module that
is only a dependency's dependency; this check does not. Prints each
undeclared import as `Target: imports X (file)` and exits 1 when any."""
import json, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                    capture_output=True, text=True).stdout)
targets = {t["name"]: t for t in package["targets"]}
pattern = re.compile(r"^\s*(?:@testable\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let)\s+)?(\w+)", re.M)
bad = 0
for name, t in sorted(targets.items()):
    declared = set()
    for d in t.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in d:
                declared.add(d[kind][0])
    folder = os.path.join(root, "Tests" if t["type"] == "test" else "Sources", t.get("path") or name)
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if not f.endswith(".swift"):
                continue
            path = os.path.join(dirpath, f)
            for module in pattern.findall(open(path, encoding="utf-8").read()):
                if module in targets and module != name and module not in declared:
                    print(f"{name}: imports {module} ({os.path.relpath(path, root)})")
                    bad += 1
print(f"check-imports: {bad} undeclared import(s)")
sys.exit(1 if bad else 0)
