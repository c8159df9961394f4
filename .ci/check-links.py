#!/usr/bin/env python3
"""Checks the links of the front door and the manual (standard library only).

    python3 .ci/check-links.py [ROOT]

Reads README.md and every docs/**/*.md. Every relative link or image
(`[text](path)`, `[text](path#anchor)`, `[label]: path`) must name a file or
folder the repository holds inside ROOT (in a git work tree: tracked, or new
and not ignored, so nothing a clone lacks, such as .build/, counts; else
present on disk); an `#anchor` into a Markdown file (or
into the same file) must be one of that file's headings, slugged as GitHub
does. Links inside fenced code blocks and inline code are not links.
No file may mention SPEC.md or cite "the SPEC" (the word in capitals): the
manual is written in the project's own words and sends no reader to a file
a clone does not hold. And every flag that Sources/HitAPI/Configuration.swift
defines must be named (as `--flag`) somewhere in docs/.

Prints one line per problem and exits 1 if there is any, else prints a
summary and exits 0.
"""

import os
import re
import subprocess
import sys
import unicodedata
from urllib.parse import unquote

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SPEC = re.compile(r"SPEC\.md|\bSPEC\b")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").lower()
    kept = []
    for ch in text:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def lines_outside_code(text):
    """(line number, line) pairs outside fenced blocks, inline code removed."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fenced is None:
                fenced = m.group(1)
            elif m.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, CODE_SPAN.sub("", line)


def anchors(path, cache={}):
    """The anchors a Markdown file defines (headings, duplicates numbered, and <a name>)."""
    if path not in cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fenced = None
        for line in text.splitlines():
            m = FENCE.match(line)
            if m:
                if fenced is None:
                    fenced = m.group(1)
                elif m.group(1) == fenced:
                    fenced = None
                continue
            if fenced is not None:
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
            found.update(HTML_ANCHOR.findall(line))
        cache[path] = found
    return cache[path]


def repository_files(root):
    """The files git would keep (tracked, or new and not ignored) and their
    folders, or None when ROOT is not a git work tree."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    files = {p for p in out.decode("utf-8").split("\0") if p}
    folders = {""}
    for p in files:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            folders.add("/".join(parts[:i]))
    return files, folders


def documents(root):
    docs = ["README.md", "Benchmarks/README.md"]
    for folder, _, names in os.walk(os.path.join(root, "docs")):
        for name in sorted(names):
            if name.endswith(".md"):
                docs.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(docs)


FLAG = re.compile(r'(?:\b(?:text|int|seconds)\(|flag:\s*)"(--[a-z0-9-]+)"')


def undocumented_flags(root, docs):
    """The flags of Configuration.swift that no docs/ page names as `--flag`."""
    source = os.path.join(root, "Sources", "HitAPI", "Configuration.swift")
    if not os.path.exists(source):
        return []
    with open(source, encoding="utf-8") as f:
        flags = sorted(set(FLAG.findall(f.read())))
    manual = ""
    for doc in docs:
        if doc.startswith("docs" + os.sep) or doc.startswith("docs/"):
            with open(os.path.join(root, doc), encoding="utf-8") as f:
                manual += f.read()
    return [f"Sources/HitAPI/Configuration.swift: {flag} is not documented in docs/ (say it as `{flag}`)"
            for flag in flags if f"`{flag}`" not in manual and f"`{flag} " not in manual]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    tracked = repository_files(root)
    problems = []
    links = 0
    docs = documents(root)
    for doc in docs:
        path = os.path.join(root, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in enumerate(text.splitlines(), 1):
            if SPEC.search(line):
                problems.append(f"{doc}:{number}: cites the SPEC (SPEC.md), which the repository does not hold")
        for number, line in lines_outside_code(text):
            targets = INLINE_LINK.findall(line)
            m = REFERENCE_DEF.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if not target or EXTERNAL.match(target) or target.startswith("//"):
                    continue
                links += 1
                where = f"{doc}:{number}: {target}"
                file_part, _, anchor = target.partition("#")
                file_part = unquote(file_part.split("?", 1)[0])
                if file_part.startswith("/"):
                    problems.append(f"{where}: absolute path (links are relative to the file)")
                    continue
                if file_part:
                    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                else:
                    resolved = path
                rel = os.path.relpath(resolved, root)
                if rel == ".":
                    rel = ""
                if rel.startswith(".."):
                    problems.append(f"{where}: points outside the repository")
                    continue
                if tracked is not None:
                    files, folders = tracked
                    exists = rel in files or rel in folders
                else:
                    exists = os.path.exists(resolved)
                if not exists:
                    problems.append(f"{where}: no such file in the repository ({rel})")
                    continue
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if unquote(anchor).lower() not in anchors(resolved):
                        problems.append(f"{where}: no heading with anchor #{anchor} in {rel}")
    problems += undocumented_flags(root, docs)
    for p in problems:
        print(p)
    if problems:
        print(f"check-links: {len(problems)} problem(s) in {len(docs)} file(s)")
        return 1
    print(f"check-links: {links} relative links in {len(docs)} file(s) resolve; no mention of SPEC.md; every flag is in docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
