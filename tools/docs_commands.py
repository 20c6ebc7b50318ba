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
  - shell commands in code spans (`mount -t slowfs latency=200,names=8
    /slow`, `dcache dump /slow`): with --boot, each is run in one boot,
    after a setup that gives it something to act on, and the shell must
    take it: no usage error, no unknown command (it may fail otherwise: a
    span shown out of its context, `umount /slow` with nothing mounted,
    still says what the shell accepts; a span that only names a command
    and its option, `mkdir -p`, may be a usage error if its words are in
    the usage).  A span that is a usage pattern
    (`ls [-l] [-a]`, `run PATH [ARGS...]`) or a command that would end or
    stall the boot (poweroff, ktest, bench, run /bin/sh) is checked
    against the command table instead (shell/commands.c): the command
    exists and every -flag it shows is in its usage.  NOT_SHELL lists the
    spans that are other programs' command lines (busybox's, Linux's).
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
    """Each fenced block of path as a list of lines (a line ending in a
    backslash joined to the next, as a shell reads it)."""
    out, cur = [], None
    for line in path.read_text().split('\n'):
        if FENCE.match(line):
            if cur is None:
                cur = []
            else:
                out.append(cur)
                cur = None
        elif cur is not None:
            if cur and cur[-1].endswith('\\'):
                cur[-1] = cur[-1][:-1] + line.lstrip()
            else:
                cur.append(line)
    return out


def spans(path):
    """Every code span outside fenced blocks (one may go on to the next line)."""
    fenced, prose = False, []
    for line in path.read_text().split('\n'):
        if FENCE.match(line):
            fenced = not fenced
            prose.append('')
        elif not fenced:
            prose.append(line)
    for span in re.findall(r'`([^`]+)`', '\n'.join(prose)):
        yield ' '.join(span.split())


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


# ---- shell commands in code spans -------------------------------------------

# Pages whose command spans are other programs' (busybox's, pjdfstest's,
# fstest's operations), and spans elsewhere whose first word names a shell
# command but which are not shell command lines.
NOT_SHELL_PAGES = {
    'docs/reference/user-programs.md': "busybox's command lines and fstest's operations",
    'docs/reference/pjdfstest.md': "pjdfstest's and busybox's",
}
NOT_SHELL = {
    'cat /sys/kernel/tracing/trace': "Linux's tracefs",
    'source mountpoint type options 0 0': "the line format of /proc/mounts",
    'stat /o/fN &': "a family of commands (f1 .. f8) in testing.md",
}
# Commands that would end the boot, run for minutes, or wait for input.
NO_RUN = {'poweroff', 'reboot', 'exit', 'ktest', 'bench', 'conflicts', 'source', 'wait', 'kill', 'exec', 'fstest'}
# What the inline commands need to act on.
INLINE_SETUP = ['mkdir -p /slow /mnt /tmp /p/q /r/s', 'touch /p/r /r/p']


def shell_table():
    text = (ROOT / 'shell' / 'commands.c').read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r'\{ "([a-z]+)", cmd_\w+, "((?:[^"\\]|\\.)*)"', text)}


def is_usage_pattern(span):
    return bool(re.search(r'\[|\.\.\.|\||\b[A-Z]{2,}\b', span)) or span.split()[0] in NO_RUN \
        or span == 'run /bin/sh'


def check_usage(span, table):
    name = span.split()[0]
    usage = table.get(name)
    if usage is None:
        return [f'{name}: not a shell command']
    words = span.split()[1:]
    if name in ('run', 'exec', 'su'):  # the program's own flags follow its path
        words = words[:next((i for i, w in enumerate(words) if not w.startswith('-')), len(words))]
    flags = {w for w in words if re.fullmatch(r'-[a-zA-Z]+', w)}
    return [f'{flag} is not in the usage of {name} ("{usage}")' for flag in sorted(flags) if flag not in usage]


def shell_spans(table):
    """(file, span) for every code span that is a shell command line."""
    out = []
    for path in docs():
        for span in spans(path):
            words = span.split()
            if len(words) > 1 and words[0] in table and span.strip() not in NOT_SHELL \
                    and path.relative_to(ROOT).as_posix() not in NOT_SHELL_PAGES:
                out.append((path.relative_to(ROOT), span.strip()))
    return out


def named_only(span, table):
    """A span that names a command with its options or subcommand but no
    operand (`mkdir -p`, `dcache dump`, `trace mark`): prose, not a line
    to run, so a usage error is its due; every word must be in the usage."""
    words, usage = span.split(), table.get(span.split()[0], '')

    def known(i):
        w = words[i]
        if re.search(r'(?<![\w-])' + re.escape(w) + r'(?![\w-])', usage):
            return True
        # the value of an option the usage shows with a placeholder: -t TYPE
        return i > 1 and re.search(re.escape(words[i - 1]) + r' [A-Z]+\b', usage) is not None
    return all(known(i) for i in range(1, len(words)))


def run_inline(commands, table):
    """Run the commands in one boot; problems (the shell refused one: an
    unknown command, or a usage error of a whole command line)."""
    script = list(INLINE_SETUP)
    for i, cmd in enumerate(commands):
        script += [f'echo docs-inline-begin {i}', cmd, f'echo docs-inline-end {i} $?']
    with tempfile.TemporaryDirectory() as tmp:
        appended_root(tmp)
        (Path(tmp) / 'docs-inline.sh').write_text('\n'.join(script) + '\n')
        argv = ['make', '-C', str(ROOT), '--no-print-directory', 'run', f'INITRD={tmp}',
                'SCRIPT=/docs-inline.sh', f'KARGS={BOOT_KARGS}']
        r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    body, _ = transcript(r.stdout, '/docs-inline.sh')
    if body is None:
        return [f'the inline commands did not run (make run exited {r.returncode}): {r.stdout[-400:]}']
    problems, cur, seen = [], None, set()
    for line in body:
        m = re.match(r'docs-inline-(begin|end) (\d+)(?: (-?\d+))?$', line)
        if m and m.group(1) == 'begin':
            cur = int(m.group(2))
        elif m:
            seen.add(cur)
            if m.group(3) == '2' and not named_only(commands[cur], table):
                problems.append(f'`{commands[cur]}`: status 2 (a usage error)')
            cur = None
        elif cur is not None and 'unknown command' in line:
            problems.append(f'`{commands[cur]}`: {line}')
    problems += [f'`{commands[i]}`: never finished' for i in range(len(commands)) if i not in seen]
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


def appended_root(tmp):
    """make run INITRD=tmp appends tmp as a second archive whose "." entry
    the kernel applies to "/" (as Linux's unpacker does), and leaves it in
    build/initrd.cpio for whatever boots that file next.  mkdtemp's 0700
    made "/" searchable by root alone: procfs.access, as uid 1000, then
    failed with EACCES in a boot of that initrd."""
    os.chmod(tmp, 0o755)


def run_session(cmds, shown, extra_make=(), cwd=ROOT):
    """Run cmds as /docs-session.sh through make run; problems."""
    with tempfile.TemporaryDirectory() as tmp:
        appended_root(tmp)
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
                in_order(['slowfs /slow: 9 lookups', 'smpvfs:/# ls'], ['smpvfs:/# ls', 'slowfs /slow: 1 lookup']),
                check_usage('ls -Q', shell_table()), check_usage('nosuchcmd x', shell_table()),
                not named_only('dcache dmp /slow', shell_table())]
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
    table = shell_table()
    runnable = []
    for rel, span in shell_spans(table):
        if is_usage_pattern(span):
            counts['usage'] = counts.get('usage', 0) + 1
            problems += [f'{rel}: `{span}`: {p}' for p in check_usage(span, table)]
        elif span not in runnable:
            runnable.append(span)
    if args.boot and runnable:
        problems += run_inline(runnable, table)
    for p in problems:
        print(p)
    print(f"docs_commands: {counts['make']} make commands, {counts['host']} host commands, "
          f"{counts['fstest']} fstest blocks, {counts.get('usage', 0)} shell usages"
          + (f", {counts['session']} shell sessions and {len(runnable)} shell commands run" if args.boot else "")
          + (": ok" if not problems else f": {len(problems)} problems"))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
