#!/usr/bin/env python3
"""Rewrites a tracelint wheel's platform tags: the tags describe the static
analyzer binary it holds (it needs no libc of the host), not Python.

    scripts/repack_wheel.py dist/wheel-any/tracelint-0.1.0-py3-none-any.whl dist

writes dist/tracelint-0.1.0-py3-none-<TAGS>.whl with the WHEEL file's Tag
lines, Root-Is-Purelib: false, and RECORD (sha256 and size of every file)
brought up to date. Standard library only (zipfile, hashlib)."""

import base64
import hashlib
import os
import sys
import zipfile

# x86-64 Linux with glibc 2.17+ (manylinux2014: CentOS 7, RHEL 8+, Ubuntu
# 20.04+) and with musl 1.1+ (Alpine): the binary is fully static.
PLATFORMS = ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"]


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, out_dir = sys.argv[1], sys.argv[2]
    name, version = os.path.basename(source).split("-")[:2]
    platform = ".".join(PLATFORMS)
    target = os.path.join(out_dir, f"{name}-{version}-py3-none-{platform}.whl")
    dist_info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(source) as zin:
        files = {i.filename: (i, zin.read(i.filename)) for i in zin.infolist()}
    wheel_name = f"{dist_info}/WHEEL"
    # An email-style header block: a blank line would end it, leaving the
    # tags after it unread.
    lines = [l for l in files[wheel_name][1].decode().splitlines()
             if l.strip() and not l.startswith(("Tag:", "Root-Is-Purelib:"))]
    lines.insert(2, "Root-Is-Purelib: false")
    lines += [f"Tag: py3-none-{p}" for p in PLATFORMS]
    files[wheel_name] = (files[wheel_name][0], ("\n".join(lines) + "\n").encode())
    record_name = f"{dist_info}/RECORD"
    record = []
    for filename, (_, data) in files.items():
        if filename != record_name:
            record.append(f"{filename},{record_hash(data)},{len(data)}")
    record.append(f"{record_name},,")
    files[record_name] = (files[record_name][0], ("\n".join(record) + "\n").encode())
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for filename, (info, data) in files.items():
            # Keeps each member's mode bits (the binary stays executable).
            new = zipfile.ZipInfo(filename, date_time=info.date_time)
            new.external_attr = info.external_attr
            new.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(new, data)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
