#!/usr/bin/env python3
"""Checks that the Swift code of the DocC articles is code that compiles and runs.

Every ```swift block of the catalog's articles (Sources/GeofenceEngine/GeofenceEngine.docc/*.md)
must appear, in the article's order, in the consumer package's walk-through
(Examples/Consumer/Sources/Consumer/WalkThrough.swift), which `make consumer` builds, runs and
checks. Lines are compared without their indentation and blank lines are ignored. A block
whose first line is `// Package.swift` is a manifest excerpt, not compiled, and is skipped.

Exit status 0 when every block is found, 1 otherwise (naming the block and its first line
that does not match).
"""
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join(ROOT, "Sources/GeofenceEngine/GeofenceEngine.docc")
CONSUMER = os.path.join(ROOT, "Examples/Consumer/Sources/Consumer/WalkThrough.swift")


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
    """Lines without indentation, blank lines dropped."""
    return [line.strip() for line in lines if line.strip()]


def find(block, lines, start):
    """Index in `lines` (at or after `start`) where `block` appears contiguously, or -1."""
    for i in range(start, len(lines) - len(block) + 1):
        if lines[i:i + len(block)] == block:
            return i
    return -1


def main():
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
