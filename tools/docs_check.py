#!/usr/bin/env python3
"""docs_check.py: the documentation's shape and links (make test-docs).

Checks, for README.md and every docs/**/*.md:
  - every relative link and image resolves to a file or directory of the
    repository, and every #anchor to a heading of the file it names, made
    by GitHub's rules (the heading's text, lowercased, with everything but
    letters, digits, spaces, '-' and '_' dropped and spaces turned into
    '-'; a repeated heading gets -1, -2, ...);
  - README.md is at most 200 lines, each docs/design chapter at most 500;
  - every docs/design chapter is named NN-topic.md and linked from the
    index, docs/DESIGN.md.
Links inside code blocks and code spans are not links, and are skipped.
Exit status 0 when all hold; otherwise one line per problem, then 1.
"""
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_MAX = 200
CHAPTER_MAX = 500

LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')


def prose_lines(text):
    """(line number, line) outside fenced code blocks, code spans blanked."""
    fenced = False
    for n, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        yield n, re.sub(r'`+[^`]*`+', lambda m: ' ' * len(m.group(0)), line)


def anchor_of(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)   # links: their text
    text = text.lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        fenced = False
        for line in path.read_text(encoding='utf-8').split('\n'):
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else HEADING.match(line)
            if not m:
                continue
            a = anchor_of(m.group(2))
            k = seen.get(a, 0)
            seen[a] = k + 1
            found.add(a if k == 0 else '%s-%d' % (a, k))
        _anchors[path] = found
    return _anchors[path]


def check_links(path, problems):
    text = path.read_text(encoding='utf-8')
    rel = path.relative_to(ROOT)
    for n, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if not target or re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):
                continue                        # http:, https:, mailto:
            file_part, _, anchor = target.partition('#')
            dest = (path.parent / file_part).resolve() if file_part else path
            where = '%s:%d: %s' % (rel, n, m.group(0))
            if not dest.exists():
                problems.append('%s: no such file %s' % (where, file_part))
                continue
            if m.group(0).startswith('!') and not dest.is_file():
                problems.append('%s: the image is not a file' % where)
            if anchor and dest.suffix == '.md' and anchor not in anchors(dest):
                problems.append('%s: no heading with the anchor #%s in %s'
                                % (where, anchor, dest.relative_to(ROOT)))


def main():
    problems = []
    docs = [ROOT / 'README.md'] + sorted((ROOT / 'docs').rglob('*.md'))
    for path in docs:
        check_links(path, problems)

    def length(path, limit):
        lines = path.read_text(encoding='utf-8').count('\n')
        if lines > limit:
            problems.append('%s: %d lines, more than %d' % (path.relative_to(ROOT), lines, limit))

    length(ROOT / 'README.md', README_MAX)
    index = (ROOT / 'docs' / 'DESIGN.md').read_text(encoding='utf-8')
    chapters = sorted((ROOT / 'docs' / 'design').glob('*.md'))
    for ch in chapters:
        length(ch, CHAPTER_MAX)
        if not re.match(r'^\d\d-[a-z0-9-]+\.md$', ch.name):
            problems.append('%s: a chapter is named NN-topic.md' % ch.relative_to(ROOT))
        if '(design/%s)' % ch.name not in index:
            problems.append('%s: not listed in the index, docs/DESIGN.md' % ch.relative_to(ROOT))

    for p in problems:
        print('docs_check: ' + p)
    if problems:
        print('docs_check: FAILED: %d problems' % len(problems))
        return 1
    print('docs_check: %d files, their links and anchors resolve; README and %d chapters within '
          'their lengths, all in the index' % (len(docs), len(chapters)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
