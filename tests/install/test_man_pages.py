"""Each program's man page (man/NAME.1) documents exactly the options its --help
lists: every option --help shows has an entry (.It Fl ...) in the page, and every
option the page shows, in its entries or its synopsis, is one --help knows.

usage: test_man_pages.py MAN_DIR PROGRAM...
"""
import os
import re
import subprocess
import sys

# An option in --help text: -h or --long-name, at a word's start (not Ctrl-C).
HELP_OPTION = re.compile(r"(?:^|[\s\[,|])(--?[A-Za-z][A-Za-z0-9-]*)")


def help_options(program):
    out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=10)
    if out.returncode != 0:
        raise SystemExit(f"{program} --help exited {out.returncode}: {out.stderr}")
    return set(HELP_OPTION.findall(out.stdout))


def man_options(path):
    """(options in .It entries, options anywhere in the page) of an mdoc page."""
    entries, anywhere = set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("."):
                continue
            words = line.split()
            # Fl's arguments are flags until the next macro: ".Fl -json | -raw".
            found = set()
            in_fl = False
            for w in words:
                if w in ("Fl", ".Fl"):
                    in_fl = True
                elif re.fullmatch(r"\.?[A-Z][a-z][a-z]?", w) and w not in ("Fl",):
                    in_fl = False
                elif in_fl and re.fullmatch(r"\\?-?[A-Za-z][A-Za-z0-9-]*,?", w):
                    found.add("-" + w.rstrip(",").replace("\\", ""))
            anywhere |= found
            if words[0] == ".It":
                entries |= found
    return entries, anywhere


def main():
    man_dir, programs = sys.argv[1], sys.argv[2:]
    failures = passed = 0
    for program in programs:
        before = failures
        name = os.path.basename(program)
        page = os.path.join(man_dir, name + ".1")
        helped = help_options(program)
        entries, anywhere = man_options(page)
        for opt in sorted(helped - entries):
            print(f"FAIL {name}: {opt} is in --help but has no entry in {page}")
            failures += 1
        for opt in sorted(anywhere - helped):
            print(f"FAIL {name}: {page} shows {opt}, which --help does not list")
            failures += 1
        if not helped:
            print(f"FAIL {name}: no options found in --help")
            failures += 1
        print(f"{name}: {len(helped)} options in --help, {len(entries)} entries in {page}")
        passed += failures == before
    print(f"{passed} passed, {len(programs) - passed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
