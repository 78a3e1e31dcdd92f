"""Small helpers shared by the modules of tools/longhorn-release."""

import hashlib
import json
import re
import sys

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("tools/longhorn-release needs PyYAML: pip install pyyaml")

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
VERSION_RE = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


class ToolError(Exception):
    """Bad input: the message says what and where; the tool exits 2 and writes nothing."""


def vkey(version):
    return tuple(int(x) for x in version.split("."))


def minor_of(version):
    return ".".join(version.split(".")[:2])


def dump_json(obj):
    return (json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def files_digest(files):
    """One sha256 for a set of files: the sha256 of the text `<sha256>  <path>\\n` per file,
    sorted by path (the output of `sha256sum` over the files in C-locale order)."""
    listing = "".join("%s  %s\n" % (sha256(files[p]), p) for p in sorted(files, key=lambda p: p.encode()))
    return sha256(listing.encode("utf-8"))


def load_yaml(text):
    return yaml.load(text, Loader=SAFE_LOADER)


def line(value):
    """One value as one line of JSON, keys sorted (the loader relies on it)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert "\n" not in text
    return text


def dump_entries(doc, sections, layout=None):
    """A JSON object one entry per line: each top-level key and its value, or, inside the
    named sections, one key and its entry per line (src/knowledge/longhorn.rs indexes the
    lines of the release tables and parses an entry when it is first read)."""
    full = dict(doc, layout=layout) if layout is not None else dict(doc)
    out = ["{"]
    keys = sorted(full)
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        if key in sections:
            out.append("%s: {" % json.dumps(key))
            names = sorted(full[key])
            for j, name in enumerate(names):
                assert '": ' not in name and "\n" not in name, name
                sep = "," if j + 1 < len(names) else ""
                out.append("  %s: %s%s" % (json.dumps(name, ensure_ascii=False), line(full[key][name]), sep))
            out.append("}" + comma)
        else:
            out.append("%s: %s%s" % (json.dumps(key), line(full[key]), comma))
    out.append("}")
    text = "\n".join(out) + "\n"
    assert json.loads(text) == full
    return text.encode("utf-8")
