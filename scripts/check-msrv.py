#!/usr/bin/env python3
"""Fails if a locked dependency needs a newer Rust than the workspace states.

Reads `cargo metadata --locked` for the host platform (what a build here
compiles, dev-dependencies included) and compares every package's
`rust-version` with the workspace's `[workspace.package] rust-version`.
"""
import json
import subprocess
import sys


def version(text):
    return tuple(int(x) for x in text.split("."))


def main():
    host = subprocess.run(
        ["rustc", "-vV"], check=True, capture_output=True, text=True
    ).stdout
    triple = next(l.split(": ", 1)[1] for l in host.splitlines() if l.startswith("host: "))
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked",
             "--filter-platform", triple],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    ours = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
    if len(ours) != 1 or None in ours:
        sys.exit(f"workspace members state different or no rust-version: {ours}")
    msrv = ours.pop()
    used = {n["id"] for n in meta["resolve"]["nodes"]}
    needs = sorted(
        ((version(p["rust_version"]), p["name"], p["version"])
         for p in meta["packages"]
         if p["id"] in used and p["id"] not in members and p.get("rust_version")),
        reverse=True,
    )
    too_new = [n for n in needs if n[0] > version(msrv)]
    for v, name, ver in too_new:
        print(f"{name} {ver} needs Rust {'.'.join(map(str, v))}, the workspace states {msrv}")
    if too_new:
        sys.exit(1)
    top = needs[0]
    print(f"rust-version {msrv}: every locked dependency fits (highest: "
          f"{top[1]} {top[2]} needs {'.'.join(map(str, top[0]))})")


if __name__ == "__main__":
    main()
