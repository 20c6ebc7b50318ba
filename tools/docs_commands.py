#!/usr/bin/env python3
"""docs_commands.py: the commands the documentation shows, run or checked
(make test-docs), so that the docs cannot drift from the code.

What counts as a command, and what is done with it:
  - `make ...` (in a code span or a fenced block of README.md or
    docs/**/*.md): its targets must be targets of the Makefile (one
    `make -pq` reads them all) and each VAR=value must be a variable the
    Makefile reads.  Not run: most of them take minutes (make test, make
    bench); the session runs below run `make run` and `make disk` for real.
  - other host commands in fenced blocks (`python3 ...`, `e2fsck`,
    `debugfs`, `cp`): the program must exist (a package of DEB_PACKAGES or
    a file of the repository); a python module or script must answer
    --help.
  - fstest lines (docs/reference/user-programs.md): run by the host's
    fstest in a scratch directory; the output shown must be the output.
  - shell sessions (fenced blocks whose lines start `smpvfs:/# `): with
    --boot, each is run by the kernel as a script, through the documented
    `make run INITRD=DIR SCRIPT=/x.sh`, and the lines the docs show must
    appear in the transcript in the same order (numbers may differ:
    counts and reference counts depend on timing; `[N] cmd`, the job
    notice the console prints for `cmd &`, is not printed by a script).  The disk session of
    docs/reference/disks.md runs the page's whole recipe: `make disk` of a
    tree, the session on it, then e2fsck -fn and the debugfs commands on
    the image, which must show the session's change.
Code spans that are patterns rather than commands (`[,NAME...]`,
`PART...`, a `make test:` output line) are skipped.

  python3 tools/docs_commands.py [--boot]     exit 0: every command holds
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r'^\s*(```|~~~)')
PROMPT = re.compile(r'^smpvfs:[^#]*# ?(.*)$')
BOOT_KARGS = "ktest=none after=poweroff"
JOB_NOTICE = re.compile(r'^\[\d+\] ')   # `cmd &` at the console prints it; a script does not


def docs():
    return [ROOT / 'README.md'] + sorted((ROOT / 'docs').rglob('*.md'))


def blocks(path):
    """Each fenced block of path as a list of lines."""
    out, cur = [], None
    for line in path.read_text().split('\n'):
        if FENCE.match(line):
            if cur is None:
                cur = []
            else:
                out.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def spans(path):
    """Every code span outside fenced blocks."""
    fenced = False
    for line in path.read_text().split('\n'):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield from re.findall(r'`([^`]+)`', line)


def strip_comment(line):
    return re.sub(r'\s+#.*$', '', line).strip()


# ---- make commands ----------------------------------------------------------

def make_database():
    """(targets, variables the Makefile reads) from one `make -pq`."""
    db = subprocess.run(['make', '-pq', '-C', str(ROOT)], capture_output=True, text=True).stdout
    targets = {m.group(1) for m in re.finditer(r'^([A-Za-z0-9_.-]+):', db, re.M)}
    text = (ROOT / 'Makefile').read_text()
    used = set(re.findall(r'\$[({]([A-Z][A-Z0-9_]*)', text))
    used |= set(re.findall(r'^\s*(?:ifdef|ifndef)\s+([A-Z][A-Z0-9_]*)', text, re.M))
    used |= set(re.findall(r'^([A-Z][A-Z0-9_]*)\s*[?:]?=', text, re.M))
    return targets, used


def check_make(cmd, targets, used):
    words = shlex.split(re.sub(r'\s*<\s*\S+', '', cmd))[1:]
    problems = []
    for w in words:
        if '=' in w:
            var = w.split('=', 1)[0]
            if var not in used:
                problems.append(f'{var} is not a variable the Makefile reads')
        elif w not in targets:
            problems.append(f'{w} is not a Makefile target')
    return problems


def is_pattern(cmd):
    return '...' in cmd or '[' in cmd or re.match(r'make \S+:', cmd) is not None


# ---- other host commands ----------------------------------------------------

def check_host(cmd):
    words = shlex.split(cmd)
    prog = words[0]
    if prog in ('python3', 'python'):
        if words[1] == '-m':
            target = ['python3', '-m', words[2], '--help']
        else:
            if not (ROOT / words[1]).is_file():
                return [f'{words[1]}: no such file in the repository']
            target = ['python3', words[1], '--help']
        r = subprocess.run(target, cwd=ROOT, capture_output=True, text=True)
        return [] if r.returncode == 0 else [f'{" ".join(target)} failed: {r.stderr.strip()[-200:]}']
    if shutil.which(prog) is None and not (ROOT / prog).exists():
        return [f'{prog}: not installed (is its package in DEB_PACKAGES?)']
    return []


# ---- fstest lines -----------------------------------------------------------

def check_fstest(block):
    """A block of `fstest ...` lines, each followed by its output lines."""
    fstest = ROOT / 'build' / 'host' / 'fstest'
    if not fstest.exists():
        fstest = ROOT / 'build' / 'host' / 'fstest-static'
    if not fstest.exists():
        return ['build/host/fstest not built (make build/host/fstest-static)']
    problems, i = [], 0
    while i < len(block):
        cmd = block[i].strip()
        i += 1
        if not cmd.startswith('fstest '):
            continue
        shown = []
        while i < len(block) and block[i].strip() and not block[i].startswith('fstest '):
            shown.append(block[i].strip())
            i += 1
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([str(fstest)] + shlex.split(cmd)[1:], cwd=tmp, capture_output=True, text=True)
        got = r.stdout.split()
        if got != shown:
            problems.append(f'{cmd}: printed {got}, the docs show {shown}')
    return problems


# ---- shell sessions ---------------------------------------------------------

def session(block):
    """(commands, shown lines) of a transcript block; shown includes the prompts."""
    cmds, shown = [], []
    for line in block:
        m = PROMPT.match(line)
        if m:
            cmds.append(m.group(1))
            shown.append('smpvfs:/# ' + m.group(1))
        elif line.strip() and not JOB_NOTICE.match(line):
            shown.append(line)
    return cmds, shown


def normal(line):
    return ' '.join(re.sub(r'\d+', '#', line).split())


def transcript(out, script):
    start = f'sh: script {script}'
    lines = [l.rstrip('\r') for l in out.split('\n')]
    try:
        i = lines.index(start)
    except ValueError:
        return None, None
    body = []
    for l in lines[i + 1:]:
        m = re.match(re.escape(start) + r': status (-?\d+)$', l)
        if m:
            return body, int(m.group(1))
        body.append(l)
    return body, None


def in_order(shown, got):
    """The first shown line not found, in order, in got (None: all found)."""
    want = [normal(l) for l in shown]
    have = [normal(re.sub(r'^smpvfs:\S*# ', 'smpvfs:/# ', l)) for l in got]
    j = 0
    for w, orig in zip(want, shown):
        while j < len(have) and have[j] != w:
            j += 1
        if j == len(have):
            return orig
        j += 1
    return None


def run_session(cmds, shown, extra_make=(), cwd=ROOT):
    """Run cmds as /docs-session.sh through make run; problems."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / 'docs-session.sh').write_text('\n'.join(cmds) + '\n')
        argv = ['make', '-C', str(ROOT), '--no-print-directory', 'run', f'INITRD={tmp}',
                'SCRIPT=/docs-session.sh', f'KARGS={BOOT_KARGS}'] + list(extra_make)
        r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    body, status = transcript(r.stdout, '/docs-session.sh')
    if body is None:
        return [f'the session did not run (make run exited {r.returncode}): {r.stdout[-400:]}{r.stderr[-400:]}']
    problems = []
    if 'poweroff' not in cmds[-1:] and status != 0:
        problems.append(f'the session ended with status {status}')
    missing = in_order(shown, body)
    if missing is not None:
        problems.append(f'the docs show "{missing}", the kernel did not print it there; it printed:\n    '
                        + '\n    '.join(body))
    for l in body:
        if l.startswith('lockdep:') or 'PANIC' in l:
            problems.append(l)
    return problems


def run_disk_recipe(host_block, session_block, fsck_block):
    """docs/reference/disks.md: make disk, the session on it, e2fsck and debugfs."""
    problems = []
    with tempfile.TemporaryDirectory() as home:
        tree = Path(home) / 'mytree'
        tree.mkdir()
        (tree / 'notes.txt').write_text('before\n')
        env = dict(os.environ, HOME=home)
        for line in host_block:
            cmd = strip_comment(line)
            if not cmd or cmd.startswith('make run'):
                continue
            cmd = cmd.replace('build/disk.img', str(ROOT / 'build' / 'disk.img'))
            if cmd.startswith('make '):
                cmd = cmd.replace('make ', f'make -C {ROOT} --no-print-directory ', 1)
            r = subprocess.run(os.path.expanduser(cmd.replace('~', home)), shell=True, cwd=home, env=env,
                               capture_output=True, text=True)
            if r.returncode:
                return [f'{cmd}: exit {r.returncode}: {r.stderr[-300:]}']
        cmds, shown = session(session_block)
        problems += run_session(cmds, shown, [f'DISK={home}/my.img'])
        (Path(home) / 'outdir').mkdir()
        for line in fsck_block:
            cmd = strip_comment(line)
            if not cmd:
                continue
            r = subprocess.run(cmd, shell=True, cwd=home, capture_output=True, text=True)
            if r.returncode or 'Fix?' in r.stdout:
                problems.append(f'{cmd}: exit {r.returncode}: {r.stdout[-300:]}{r.stderr[-300:]}')
            if 'cat /notes.txt' in cmd and r.stdout.strip() != 'changed':
                problems.append(f'{cmd} printed {r.stdout.strip()!r}, not the session\'s "changed"')
            if 'ls -l /' in cmd and ' new' not in r.stdout:
                problems.append(f'{cmd}: the session\'s mkdir /mnt/new is not on the image')
        if not (Path(home) / 'outdir' / 'notes.txt').exists():
            problems.append('debugfs rdump did not copy notes.txt out')
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--boot', action='store_true', help='also run the shell sessions (boots QEMU)')
    args = ap.parse_args()
    targets, used = make_database()
    # The checker's own controls: each must be refused, or it checks nothing.
    controls = [check_make('make no-such-target', targets, used), check_make('make run NO_SUCH_VAR=1', targets, used),
                check_host('no-such-program --x'), check_host('python3 no/such/script.py'),
                in_order(['slowfs /slow: 9 lookups', 'smpvfs:/# ls'], ['smpvfs:/# ls', 'slowfs /slow: 1 lookup'])]
    if not all(controls):
        print(f'docs_commands: a control was not refused: {controls}')
        return 1
    problems, counts = [], {'make': 0, 'host': 0, 'fstest': 0, 'session': 0}
    seen = set()
    for path in docs():
        rel = path.relative_to(ROOT)
        cmds = [s for s in spans(path) if s.startswith('make ') or s == 'make']
        fenced = blocks(path)
        for b in fenced:
            cmds += [strip_comment(l) for l in b if l.startswith('make ')]
        for cmd in cmds:
            if is_pattern(cmd) or cmd in seen:
                continue
            seen.add(cmd)
            counts['make'] += 1
            problems += [f'{rel}: `{cmd}`: {p}' for p in check_make(cmd, targets, used)]
        for b in fenced:
            for l in b:
                first = l.split(' ', 1)[0]
                if first in ('python3', 'e2fsck', 'debugfs', 'cp') and strip_comment(l) not in seen:
                    seen.add(strip_comment(l))
                    counts['host'] += 1
                    problems += [f'{rel}: `{strip_comment(l)}`: {p}' for p in check_host(strip_comment(l))]
            if any(l.startswith('fstest ') for l in b):
                counts['fstest'] += 1
                problems += [f'{rel}: {p}' for p in check_fstest(b)]
        sessions = [b for b in fenced if any(PROMPT.match(l) for l in b)]
        if not args.boot or not sessions:
            continue
        if rel.as_posix() == 'docs/reference/disks.md':
            i = fenced.index(sessions[0])
            counts['session'] += 1
            problems += [f'{rel}: {p}' for p in run_disk_recipe(fenced[i - 1], sessions[0], fenced[i + 1])]
            continue
        for b in sessions:
            counts['session'] += 1
            problems += [f'{rel}: {p}' for p in run_session(*session(b))]
    for p in problems:
        print(p)
    print(f"docs_commands: {counts['make']} make commands, {counts['host']} host commands, "
          f"{counts['fstest']} fstest blocks" + (f", {counts['session']} shell sessions run" if args.boot else "")
          + (": ok" if not problems else f": {len(problems)} problems"))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
