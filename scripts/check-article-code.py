#!/usr/bin/env python3
"""Checks that the Swift code of the DocC articles is code that compiles and runs.

Every ```swift block of the catalog's articles (Sources/GeofenceEngine/GeofenceEngine.docc/*.md)
must appear, in the article's order, in the consumer package's walk-through
(Examples/Consumer/Sources/Consumer/WalkThrough.swift), which `make consumer` builds, runs and
checks. Lines are compared without their indentation and blank lines are ignored. A block
whose first line is `// Package.swift` is a manifest excerpt, not compiled, and is skipped.

A consumer line ending in `// API: <text>` is compared as <text>: the articles use the names of
the public API sweep (issue 12) while the consumer still compiles against the older names.
`--apply-api` rewrites those lines to <text> in place, for when the sweep lands.

Exit status 0 when every block is found, 1 otherwise (naming the block and its first line
that does not match).
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join(ROOT, "Sources/GeofenceEngine/GeofenceEngine.docc")
CONSUMER = os.path.join(ROOT, "Examples/Consumer/Sources/Consumer/WalkThrough.swift")
API = re.compile(r"^(\s*).*?//\s*API:\s*(.*)$")


def swift_blocks(path):
    """(first line number, lines) of each ```swift block of a Markdown file."""
    blocks, current, start = [], None, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fence = line.strip()
            if current is None and fence == "```swift":
                current, start = [], number + 1
            elif current is not None and fence.startswith("```"):
                blocks.append((start, current))
                current = None
            elif current is not None:
                current.append(line.rstrip("\n"))
    return blocks


def normalized(lines):
    """Lines without indentation, blank lines dropped, `// API:` lines as their API text."""
    out = []
    for line in lines:
        m = API.match(line)
        text = (m.group(2) if m else line).strip()
        if text:
            out.append(text)
    return out


def find(block, lines, start):
    """Index in `lines` (at or after `start`) where `block` appears contiguously, or -1."""
    for i in range(start, len(lines) - len(block) + 1):
        if lines[i:i + len(block)] == block:
            return i
    return -1


def apply_api(path):
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    changed = 0
    for i, line in enumerate(lines):
        m = API.match(line)
        if m:
            lines[i] = m.group(1) + m.group(2).rstrip() + "\n"
            changed += 1
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    print(f"{os.path.relpath(path, ROOT)}: {changed} lines switched to the API sweep's names")


def main():
    if sys.argv[1:] == ["--apply-api"]:
        apply_api(CONSUMER)
        return 0
    with open(CONSUMER, encoding="utf-8") as f:
        consumer = normalized(f.read().split("\n"))
    failures, checked = 0, 0
    for article in sorted(glob.glob(os.path.join(CATALOG, "*.md"))):
        position = 0
        name = os.path.relpath(article, ROOT)
        for line_number, block in swift_blocks(article):
            if block and block[0].strip() == "// Package.swift":
                continue
            wanted = normalized(block)
            checked += 1
            at = find(wanted, consumer, position)
            if at >= 0:
                position = at + len(wanted)
                continue
            failures += 1
            # Name the first line of the block that the consumer does not have where expected.
            longest = 0
            for i in range(position, len(consumer)):
                n = 0
                while n < len(wanted) and i + n < len(consumer) and consumer[i + n] == wanted[n]:
                    n += 1
                longest = max(longest, n)
            missing = wanted[longest] if longest < len(wanted) else wanted[0]
            print(f"{name}:{line_number}: this block is not in {os.path.relpath(CONSUMER, ROOT)} "
                  f"(in order, after the previous block); first line not matched: {missing}")
    print(f"article code: {checked} blocks checked against the consumer, {failures} missing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
