"""Hostile ext2 images: a real image (mke2fs -d) with fields corrupted from a seed.

  hostile_disks(work, seed, count)
                                 count images (roles hostile0...), each
                                 made from one tree and corrupted with the
                                 random stream of (seed, its number);
                                 hostile0 always has a file cross-linked to
                                 a directory block, hostile1 a hard link to
                                 a directory, the rest are drawn at random
  mutate(path, rng, kinds=None)  corrupt the image at path in place with one
                                 to three mutations drawn from rng; returns
                                 their descriptions (printed with the seed,
                                 so that a failure can be replayed)

The image is read as e2fsprogs writes it (revision 1, the group
descriptors in the block after the superblock, 32-byte descriptors).  A
mutation is one of KINDS, each aimed at a structure the driver parses:

  sb        a superblock field (counts, sizes, geometry, features, state)
  gd        a group descriptor field (bitmap and table locations, counts)
  inode     a field of an inode in use (mode, size, links, flags, a block
            pointer)
  dirent    a field of a directory entry (record length, name length,
            inode number, file type)
  indirect  a pointer in an indirect block
  bitmap    a used block or inode marked free (so it is handed out twice)
  xlink     a file's block pointer aimed at a directory's block, an inode
            table block or a bitmap: writes to the file then change that
            block under the driver (issue 40's once-checked directory block)
  dirlink   a directory entry aimed at another directory's inode: a hard
            link to a directory (issue 40's directory with two dentries)

Linux's fs fuzzing experience says most bugs are in directory walks and
block maps, so those kinds are drawn more often.
"""
import os
import random
import shutil
import struct

from tests.lib import ext2img
from tests.lib.disks import Disk

IMAGE_MB = 2
KINDS = ("sb", "gd", "inode", "dirent", "indirect", "bitmap", "xlink", "dirlink")
WEIGHTS = (2, 2, 3, 4, 3, 2, 3, 2)

# (offset, size, name) of superblock fields worth corrupting.
SB_FIELDS = ((0, 4, "s_inodes_count"), (4, 4, "s_blocks_count"), (12, 4, "s_free_blocks_count"),
             (16, 4, "s_free_inodes_count"), (20, 4, "s_first_data_block"),
             (24, 4, "s_log_block_size"), (32, 4, "s_blocks_per_group"),
             (40, 4, "s_inodes_per_group"), (58, 2, "s_state"), (76, 4, "s_rev_level"),
             (84, 4, "s_first_ino"), (88, 2, "s_inode_size"), (96, 4, "s_feature_incompat"),
             (100, 4, "s_feature_ro_compat"), (8, 4, "s_r_blocks_count"))
GD_FIELDS = ((0, 4, "bg_block_bitmap"), (4, 4, "bg_inode_bitmap"), (8, 4, "bg_inode_table"),
             (12, 2, "bg_free_blocks_count"), (14, 2, "bg_free_inodes_count"),
             (16, 2, "bg_used_dirs_count"))
INODE_FIELDS = ((0, 2, "i_mode"), (4, 4, "i_size"), (26, 2, "i_links_count"), (28, 4, "i_blocks"),
                (32, 4, "i_flags"), (104, 4, "i_file_acl"), (108, 4, "i_size_high"))


class Image:
    def __init__(self, data):
        self.d = data
        sb = 1024
        (self.inodes_count, self.blocks_count) = struct.unpack_from("<II", data, sb)
        self.first_data_block, log = struct.unpack_from("<II", data, sb + 20)
        self.bs = 1024 << log
        self.bpg, = struct.unpack_from("<I", data, sb + 32)
        self.ipg, = struct.unpack_from("<I", data, sb + 40)
        self.first_ino, self.isize = struct.unpack_from("<IH", data, sb + 84)
        self.groups = (self.blocks_count - self.first_data_block + self.bpg - 1) // self.bpg
        self.gdt = (self.first_data_block + 1) * self.bs
        self.inodes = {}        # ino -> (offset of the raw inode, mode)
        for g in range(self.groups):
            ibm, itab = struct.unpack_from("<xxxxII", data, self.gdt + 32 * g)
            for i in range(self.ipg):
                if not data[ibm * self.bs + i // 8] & (1 << (i % 8)):
                    continue
                ino = g * self.ipg + i + 1
                off = itab * self.bs + i * self.isize
                mode, = struct.unpack_from("<H", data, off)
                if mode and (ino == 2 or ino >= self.first_ino):
                    self.inodes[ino] = (off, mode)

    def u(self, off, size):
        return struct.unpack_from("<I" if size == 4 else "<H", self.d, off)[0]

    def put(self, off, size, value):
        struct.pack_into("<I" if size == 4 else "<H", self.d, off, value & (0xFFFFFFFF if size == 4 else 0xFFFF))

    def pointers(self, ino):
        off = self.inodes[ino][0]
        return [self.u(off + 40 + 4 * k, 4) for k in range(15)]

    def of_type(self, kind):
        return sorted(i for i, (_, m) in self.inodes.items() if m & 0o170000 == kind)

    def dir_blocks(self):
        """(directory inode, block number) of every direct directory block."""
        return [(i, b) for i in self.of_type(0o040000) for b in self.pointers(i)[:12]
                if 0 < b < self.blocks_count]

    def entries(self, block):
        """Offsets of the entries of a directory block, as they chain."""
        out, off, base = [], 0, block * self.bs
        while off + 8 <= self.bs and len(out) < 512:
            rec = self.u(base + off + 4, 2)
            out.append(off)
            if rec < 8:
                break
            off += rec
        return out

    def indirect_blocks(self):
        return [p[12] for i in self.of_type(0o100000) for p in [self.pointers(i)]
                if 0 < p[12] < self.blocks_count]


def interesting(rng, orig, size, img):
    top = 0xFFFFFFFF if size == 4 else 0xFFFF
    choices = [0, 1, 2, 3, top, top >> 1, (top >> 1) + 1, orig + 1, orig - 1, orig * 2,
               orig ^ (1 << rng.randrange(size * 8)), rng.randrange(top + 1),
               img.blocks_count, img.blocks_count - 1, img.inodes_count, img.inodes_count + 1]
    return rng.choice(choices) & top


def mutate_sb(img, rng):
    off, size, name = rng.choice(SB_FIELDS)
    orig = img.u(1024 + off, size)
    new = interesting(rng, orig, size, img)
    img.put(1024 + off, size, new)
    return f"sb {name} {orig:#x} -> {new:#x}"


def mutate_gd(img, rng):
    g = rng.randrange(img.groups)
    off, size, name = rng.choice(GD_FIELDS)
    at = img.gdt + 32 * g + off
    orig = img.u(at, size)
    new = interesting(rng, orig, size, img)
    img.put(at, size, new)
    return f"gd {g} {name} {orig:#x} -> {new:#x}"


def mutate_inode(img, rng):
    ino = rng.choice(sorted(img.inodes))
    base = img.inodes[ino][0]
    if rng.random() < 0.5:
        k = rng.randrange(15)
        off, size, name = 40 + 4 * k, 4, f"i_block[{k}]"
    else:
        off, size, name = rng.choice(INODE_FIELDS)
    orig = img.u(base + off, size)
    new = interesting(rng, orig, size, img)
    if name == "i_mode" and rng.random() < 0.5:    # another type, same permissions
        new = (orig & 0o7777) | rng.choice((0o040000, 0o100000, 0o120000, 0o020000, 0o170000))
    img.put(base + off, size, new)
    return f"inode {ino} {name} {orig:#x} -> {new:#x}"


def mutate_dirent(img, rng):
    ino, block = rng.choice(img.dir_blocks())
    offs = img.entries(block)
    e = block * img.bs + rng.choice(offs)
    field = rng.choice(("rec_len", "rec_len", "name_len", "inode", "file_type"))
    if field == "rec_len":
        orig = img.u(e + 4, 2)
        new = rng.choice((0, 4, 8, 11, 12, orig + 4, orig - 4, orig + 1, img.bs, img.bs + 4,
                          img.bs * 2, 0xFFFC))
        img.put(e + 4, 2, new)
    elif field == "name_len":
        orig = img.d[e + 6]
        new = rng.choice((0, 1, 255, orig + 1, orig + 100))
        img.d[e + 6] = new & 0xFF
    elif field == "inode":
        orig = img.u(e, 4)
        new = interesting(rng, orig, 4, img)
        img.put(e, 4, new)
    else:
        orig = img.d[e + 7]
        new = rng.randrange(256)
        img.d[e + 7] = new
    return f"dirent dir {ino} block {block} offset {e - block * img.bs} {field} {orig:#x} -> {new:#x}"


def mutate_indirect(img, rng):
    blocks = img.indirect_blocks()
    if not blocks:
        return mutate_inode(img, rng)
    b = rng.choice(blocks)
    k = rng.randrange(img.bs // 4)
    at = b * img.bs + 4 * k
    orig = img.u(at, 4)
    new = interesting(rng, orig, 4, img)
    img.put(at, 4, new)
    return f"indirect block {b} [{k}] {orig:#x} -> {new:#x}"


def mutate_bitmap(img, rng):
    g = rng.randrange(img.groups)
    bbm, ibm = struct.unpack_from("<II", img.d, img.gdt + 32 * g)
    which, bm, n = rng.choice((("block", bbm, img.bpg), ("inode", ibm, img.ipg)))
    used = [i for i in range(min(n, img.bs * 8)) if img.d[bm * img.bs + i // 8] & (1 << (i % 8))]
    bit = rng.choice(used[:4096]) if used else 0
    img.d[bm * img.bs + bit // 8] &= ~(1 << (bit % 8)) & 0xFF
    return f"bitmap {which} group {g} bit {bit} cleared"


def mutate_xlink(img, rng, dirs_only=False):
    files = [i for i in img.of_type(0o100000) if img.pointers(i)[0]]
    if not files:
        return mutate_inode(img, rng)
    f = rng.choice(files)
    dirs = [("directory", b) for _, b in img.dir_blocks()]
    bbm, ibm, itab = struct.unpack_from("<III", img.d, img.gdt)
    meta = [("inode table", itab), ("inode bitmap", ibm), ("block bitmap", bbm),
            ("group descriptor", img.first_data_block + 1)]
    what, target = rng.choice(dirs if dirs_only or rng.random() < 0.6 else meta)
    k = 0
    orig = img.pointers(f)[k]
    img.put(img.inodes[f][0] + 40 + 4 * k, 4, target)
    return f"xlink file {f} i_block[{k}] {orig:#x} -> {target:#x} (a {what} block)"


def mutate_dirlink(img, rng):
    dirs = img.of_type(0o040000)
    named = []      # entries other than "." and "..", in use
    for ino, block in img.dir_blocks():
        for off in img.entries(block):
            e = block * img.bs + off
            nl = img.d[e + 6]
            name = bytes(img.d[e + 8:e + 8 + nl])
            if img.u(e, 4) and name not in (b".", b".."):
                named.append((ino, block, off))
    ino, block, off = rng.choice(named)
    e = block * img.bs + off
    orig = img.u(e, 4)
    new = rng.choice(dirs)
    img.put(e, 4, new)
    img.d[e + 7] = 2     # EXT2_FT_DIR
    return f"dirlink dir {ino} block {block} offset {off} inode {orig} -> {new} (a directory)"


MUTATORS = {"sb": mutate_sb, "gd": mutate_gd, "inode": mutate_inode, "dirent": mutate_dirent,
            "indirect": mutate_indirect, "bitmap": mutate_bitmap, "xlink": mutate_xlink,
            "dirlink": mutate_dirlink,
            "xlinkdir": lambda img, rng: mutate_xlink(img, rng, dirs_only=True)}


def mutate(path, rng, kinds=None):
    """Corrupt the image at path in place; returns what was done, one line each."""
    data = bytearray(path.read_bytes())
    img = Image(data)
    done = []
    count = 1 if kinds else rng.choice((1, 1, 2, 3))
    for _ in range(count):
        kind = rng.choice(kinds) if kinds else rng.choices(KINDS, WEIGHTS)[0]
        done.append(MUTATORS[kind](img, rng))
    path.write_bytes(data)
    return done


def make_tree(root):
    """A small tree: 4 regular files (one with an indirect block), a
    directory of 3 blocks (fast and slow symlinks, a fifo), nested
    directories.  Few files, so that the script writes to each of them."""
    root.mkdir(parents=True)
    (root / "a.txt").write_bytes(b"hello, hostile disk\n")
    (root / "big").write_bytes(random.Random(40).randbytes(20 * 1024))     # past 12 blocks
    d1 = root / "d1"
    (d1 / "sub").mkdir(parents=True)
    (d1 / "sub" / "g").write_bytes(b"g" * 3000)
    for i in range(60):
        os.symlink("t" * (10 if i % 2 else 80) + str(i), d1 / f"link-with-a-longish-name-{i:03d}")
    os.mkfifo(d1 / "fifo")
    (root / "d2").mkdir()
    (root / "d2" / "f").write_bytes(b"f" * 1500)


def hostile_disks(work, seed, count):
    """The disks of one boot: count corrupted copies of one image."""
    tree, base = work / "tree", work / "base.img"
    shutil.rmtree(tree, ignore_errors=True)
    make_tree(tree)
    ext2img.make_image(base, IMAGE_MB, tree, inode_size=256)
    disks = []
    for n in range(count):
        rng = random.Random(f"{seed}-{n}")
        image = work / f"hostile{n}.img"
        shutil.copyfile(base, image)
        kinds = ("xlinkdir",) if n == 0 else ("dirlink",) if n == 1 else None
        done = mutate(image, rng, kinds)
        print(f"  hostile{n} (seed {seed}): " + "; ".join(done))
        disks.append(Disk(f"hostile{n}", image))
    return disks


def requests_in_bounds(disks):
    """Host check: no request reached a device past its end, and no image
    changed size."""
    problems = []
    for d in disks.disks:
        size = d.image.stat().st_size
        if size != IMAGE_MB << 20:
            problems.append(f"{d.image.name} is {size} bytes now, not {IMAGE_MB << 20}")
        bad = [r for r in disks.requests(d.role) if r.offset + r.count > size]
        if bad:
            problems.append(f"{d.role}: {len(bad)} requests past the end of the device "
                            f"(first: {bad[0].op} at {bad[0].offset:#x} + {bad[0].count:#x})")
        print(f"  host check {d.role}: {len(disks.requests(d.role))} requests, "
              f"{'none' if not bad else len(bad)} past the end")
    return problems


def xrename_disk(work):
    """A hand-made case next to the generated ones (role xrename): /m, a
    directory with a file, whose first block is also the first block of
    the file /x; /other, an empty directory.  The kernel caches m, writes
    zeros into x (m loses its "." and ".."), then renames m into other:
    the rename must fail and change nothing (tests/test_ext2_hostile.c)."""
    tree, image = work / "xrename", work / "xrename.img"
    shutil.rmtree(tree, ignore_errors=True)
    (tree / "m").mkdir(parents=True)
    (tree / "m" / "inside").write_bytes(b"i\n")
    (tree / "other").mkdir()
    (tree / "x").write_bytes(b"x" * 1024)
    ext2img.make_image(image, IMAGE_MB, tree)
    out = ext2img.run(["debugfs", "-R", "bmap /m 0", str(image)]).stdout.split()
    block = int(out[-1])
    p = ext2img.run(["debugfs", "-w", "-R", f"sif /x block[0] {block}", str(image)])
    if p.returncode:
        raise RuntimeError(f"debugfs sif failed: {p.stderr}")
    print(f"  xrename: /x's block 0 is /m's block {block}")
    return Disk("xrename", image)


def hostile_profile_fields(seed, count):
    """What a disk profile of count hostile images needs: its disks, the
    lines the kernel must print (one per image), its host check."""
    return (lambda work: hostile_disks(work, seed, count),
            tuple(rf"# HOSTILE {n} (mounted|mount refused)" for n in range(count)),
            requests_in_bounds)
