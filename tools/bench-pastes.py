#!/usr/bin/env python3
"""Derive the paste fixtures of `lhc report` (tests/fixtures/bench/pastes/) from the real
benchmark outputs kept in tests/fixtures/bench/: the forms users paste results in (several
dbench summaries with one title, markdown, `#` comments, quotes, `kubectl logs --timestamps`
with or without `--prefix`). Writes each file and pastes/SOURCE.md (what each was made from,
with the sha256 of its inputs). Deterministic: running it again gives the same bytes.

Usage: tools/bench-pastes.py
"""
import hashlib
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "tests", "fixtures", "bench")
OUT = os.path.join(BENCH, "pastes")


def read(path):
    with open(os.path.join(BENCH, path), encoding="utf-8") as f:
        return f.read()


def sha(path):
    with open(os.path.join(BENCH, path), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def lines(path):
    return read(path).rstrip("\n").split("\n")


def untitled(path):
    """A dbench summary without its title and rules."""
    return [l for l in lines(path) if l and not l.startswith("=")]


def stamps(start_second, count):
    """`kubectl logs --timestamps` times: RFC 3339 in UTC with Go's RFC3339Nano fraction, whose
    trailing zeros are cut (so the precision varies from line to line)."""
    out = []
    for i in range(count):
        total = start_second * 1_000_000_000 + 120_000_000 + i * 137_000_931
        second, nanos = divmod(total, 1_000_000_000)
        if i % 7 == 3:
            nanos = 0
        elif i % 5 == 1:
            nanos -= nanos % 1000
        frac = f".{nanos:09d}".rstrip("0") if nanos else ""
        out.append(f"2024-05-01T12:{second // 60:02d}:{second % 60:02d}{frac}Z")
    return out


def offset_stamps(count):
    """Local times with a UTC offset and millisecond precision, as log collectors write them."""
    return [f"2024-05-01T14:00:{i % 60:02d}.{(i * 211) % 1000:03d}+02:00" for i in range(count)]


FILES = []


def paste(name, made_from, inputs, text):
    FILES.append((name, made_from, inputs))
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    os.makedirs(OUT, exist_ok=True)

    # 1. Six dbench summaries, only the first with its title (as the guides paste them).
    inputs = [f"dbench/summary-example-{n}.txt" for n in range(1, 6)]
    inputs.append("dbench/local-run-logdna-quick.txt")
    blocks = ["\n".join(lines(inputs[0]))]
    blocks += ["\n".join(untitled(p)) for p in inputs[1:5]]
    blocks.append(lines(inputs[5])[-1])
    paste(
        "dbench-summaries-one-title.txt",
        "the five dbench summary examples and the quick local run's summary line, one after the "
        "other with a blank line between; the title and its rules kept on the first only",
        inputs,
        "\n\n".join(blocks) + "\n",
    )

    # 2. Markdown: a heading per class above each summary in a code fence.
    inputs = [f"dbench/summary-example-{n}.txt" for n in (2, 3, 4)]
    body = ["# dbench results", "", "Run on the homelab, one run per StorageClass.", ""]
    for heading, path, titled in zip(
        ["### StorageClass local-path", "### nfs-synology:", "**longhorn**"], inputs, [True, False, False]
    ):
        body += [heading, "", "```text"]
        body += lines(path) if titled else untitled(path)
        body += ["```", ""]
    paste(
        "dbench-summaries-headings.md",
        "dbench summary examples 2, 3, 4 (local, Synology, Longhorn in their source) in markdown "
        "code fences, each under a heading naming its class (`### StorageClass local-path`, "
        "`### nfs-synology:`, `**longhorn**`); titles removed from the last two",
        inputs,
        "\n".join(body),
    )

    # 3. Every line commented out.
    inputs = ["dbench/summary-example-5.txt", "dbench/summary-example-1.txt"]
    body = ["# StorageClass longhorn-nvme"] + [f"# {l}" for l in lines(inputs[0])]
    body += ["#", "# StorageClass local-path"] + [f"# {l}" for l in untitled(inputs[1])]
    paste(
        "dbench-commented.txt",
        "dbench summary examples 5 and 1 (the second without its title), every line commented "
        "with `# `, each under a `# StorageClass <name>` line",
        inputs,
        "\n".join(body) + "\n",
    )
    path = "kbench/summary-example-5.txt"
    paste(
        "kbench-commented.txt",
        "kbench summary example 5 (with its preamble and 40-space line), every line commented "
        "with `# ` (the blank lines with `#`)",
        [path],
        "".join(f"# {l}".rstrip(" ") + "\n" if not l.strip() else f"# {l}\n" for l in lines(path)),
    )

    # 4. Markdown emphasis, code spans, quotes and bullets.
    path = "kubestr/fio-output-example-1.txt"
    out = ["Here is what `kubestr fio -s civo-volume` gave me:", ""]
    for l in lines(path):
        t = l.strip()
        if not t:
            out.append("")
        elif t in ("read:", "write:"):
            out.append(f"- **{t[:-1]}**:")
        elif t.startswith("IOPS="):
            out.append(f"  - `{t}`")
        elif t.startswith("JobName:"):
            out.append(f"**JobName:** {t.split(':', 1)[1].strip()}")
        elif t.startswith("FIO version"):
            out.append(f"**{t}**")
        elif t == "-  OK":
            out.append("- OK")
        else:
            out.append(f"- {t}")
    paste(
        "kubestr-markdown.md",
        "kubestr text example 1 as a markdown list: bullets on every line, `**read**:`, "
        "`**JobName:**`, the `IOPS=` lines in code spans, the status as `- OK`",
        [path],
        "\n".join(out) + "\n",
    )
    # A terminal copy in a markdown code block: indented by four spaces, kubestr's bold (its
    # green `OK`) and the figures one wants to point at in `**` emphasis.
    path = "kubestr/replay-local-text-1.txt"
    out = ["kubestr on my laptop:", ""]
    for l in lines(path):
        l = l.rstrip(" ").replace("\x1b[1;32mOK\x1b[0m", "**OK**")
        t = l.strip()
        if t in ("read:", "write:"):
            l = l.replace(t, f"**{t[:-1]}**:")
        elif t.startswith(("iops:", "bw(KiB/s):")):
            head, avg = l.rsplit(" ", 1)
            l = f"{head} **{avg}**"
        out.append(f"    {l}" if l else "")
    paste(
        "kubestr-indented-bold.md",
        "kubestr text replay 1 (it names no class) as a markdown code block indented by four "
        "spaces: `**read**:`, `**write**:`, each `avg=` in bold (`**avg=6860.333496**`), the "
        "green `OK` as `**OK**`",
        [path],
        "\n".join(out) + "\n",
    )
    path = "dbench/summary-example-2.txt"
    out = ["> dbench on local-path:", ">"]
    for l in lines(path):
        out.append(f"> {l}" if l.startswith("=") else f"> * {l}")
    paste(
        "dbench-quoted.md",
        "dbench summary example 2 in a markdown quote (`> `), its four lines as `* ` bullets",
        [path],
        "\n".join(out) + "\n",
    )
    path = "fio/fio-json-with-stdout-note.json"
    out = ["> fio on the node:", "> ```json"] + [f"> {l}".rstrip(" ") for l in lines(path)] + ["> ```"]
    paste(
        "fio-json-quoted.md",
        "fio's JSON with its stdout note inside a quoted markdown code fence (`> ```json`)",
        [path],
        "\n".join(out) + "\n",
    )

    # 5. kubectl logs --timestamps, with and without --prefix.
    path = "dbench/local-run-logdna-quick.txt"
    src = lines(path)
    paste(
        "kubectl-timestamps.log",
        "the quick local dbench run as `kubectl logs --timestamps` prints it (RFC 3339 UTC, "
        "RFC3339Nano fractions of varying length)",
        [path],
        "".join(f"{t} {l}\n" for t, l in zip(stamps(0, len(src)), src)),
    )
    a, b = "kbench/summary-local-quick.txt", "dbench/summary-example-1.txt"
    la, lb = lines(a), lines(b)
    ta, tb = stamps(0, len(la)), stamps(3, len(lb))
    out = []
    for i in range(max(len(la), len(lb))):
        if i < len(la):
            out.append(f"[pod/kbench-7xk2p/kbench] {ta[i]} {la[i]}")
        if i < len(lb):
            out.append(f"[pod/dbench-q8m4z/dbench] {tb[i]} {lb[i]}")
    paste(
        "kubectl-prefix-timestamps.log",
        "the quick local kbench run and dbench summary example 1 as `kubectl logs -l ... "
        "--prefix --timestamps` prints two pods of plain Jobs (`kbench-7xk2p`, "
        "`dbench-q8m4z`), their lines interleaved",
        [a, b],
        "\n".join(out) + "\n",
    )
    path = "kbench/summary-local-quick.txt"
    src = lines(path)
    paste(
        "timestamps-offsets.log",
        "the quick local kbench run with RFC 3339 local times (`+02:00`, milliseconds) before "
        "every line",
        [path],
        "".join(f"{t} {l}\n" for t, l in zip(offset_stamps(len(src)), src)),
    )

    with open(os.path.join(OUT, "SOURCE.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(
            "# Pastes of benchmark results\n\n"
            "Derived by `tools/bench-pastes.py` from the real outputs in `tests/fixtures/bench/` "
            "(their provenance: `../SOURCE.md`), in the forms users paste results: several "
            "summaries with one title, markdown, `#` comments, quotes, `kubectl logs "
            "--timestamps` with or without `--prefix`. The numbers are the inputs' own.\n\n"
            "| file | made from | inputs (sha256) |\n|---|---|---|\n"
        )
        for name, made_from, inputs in FILES:
            ins = "<br>".join(f"`{p}` {sha(p)}" for p in inputs)
            f.write(f"| `{name}` | {made_from} | {ins} |\n")


if __name__ == "__main__":
    main()
