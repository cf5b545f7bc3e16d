#!/usr/bin/env python3
"""Render benchmark tables and assemble bench/RESULTS.md.

  mkresults.py table OUT/results-CORPUS.tsv   -> writes OUT/results-CORPUS.md
  mkresults.py assemble [--cmd CMD] [NAME...] -> writes bench/RESULTS.md from
                                                 bench/out/results-NAME.md for the
                                                 four standard corpora (those present)
                                                 and each NAME given

The TSV is written by bench/run.sh: '#'-lines carry "key<TAB>value" metadata,
then a header line, then one row per codec.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
CORPUS_ORDER = ["illumina.fastq", "pacbio.fastq", "gcide.txt", "cldr.tar"]
MB = 1e6


def read_tsv(path):
    meta, rows, header = {}, [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                k, _, v = line[1:].strip().partition("\t")
                meta[k] = v
            elif header is None:
                header = line.split("\t")
            else:
                rows.append(dict(zip(header, line.split("\t"))))
    return meta, rows


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def speed(nbytes, secs):
    if secs is None or secs <= 0:
        return None
    return nbytes / secs / MB


def fmt_speed(v):
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def render_table(tsv_path):
    meta, rows = read_tsv(tsv_path)
    corpus = meta.get("corpus", os.path.basename(tsv_path))
    orig = int(meta["bytes"])
    ref = None
    for r in rows:
        if r["id"] == "zstd-3" and r["status"] == "ok":
            ref = speed(orig, fnum(r["dec_s"]))
    lines = []
    lines.append(f"### {corpus}")
    lines.append("")
    lines.append(f"{orig:,} bytes ({orig / MB:.1f} MB), sha256 `{meta.get('sha256', '?')}`  ")
    lines.append(f"measured {meta.get('date', '?')} in {float(meta.get('elapsed_s', 'nan')):.0f} s; "
                 f"load average {meta.get('load_start', '?')} at start, {meta.get('load_end', '?')} at end")
    if meta.get("reused"):
        lines.append("")
        lines.append(f"Rows reused from an earlier run (`--reuse`, see the verified column): {meta['reused'].replace(',', ', ')}")
    lines.append("")
    hdr = ["codec", "ratio %", "compress MB/s (1 thread)", "compress MB/s (-T0)",
           "decompress MB/s (1 thread)", "decode vs zstd -3", "verified"]
    align = ["---", "---:", "---:", "---:", "---:", "---:", "---"]
    table = [hdr, align]
    notes = []
    for r in rows:
        csize = fnum(r["csize"])
        ratio = f"{100.0 * csize / orig:.2f}" if csize else "—"
        c1 = fmt_speed(speed(orig, fnum(r["comp_s"])))
        c0 = fmt_speed(speed(orig, fnum(r["comp_t0_s"])))
        dsp = speed(orig, fnum(r["dec_s"]))
        rel = f"{dsp / ref:.2f}×" if (dsp is not None and ref) else "—"
        label = f"`{r['label']}`"
        if r.get("note"):
            notes.append(f"{r['label']}: {r['note']}")
            label += f" [{len(notes)}]"
        status = r["status"] if r["status"] == "ok" else f"**{r['status']}**"
        ver = r.get("verified", "")
        verified = ver if r["status"] == "ok" else status
        table.append([label, ratio, c1, c0, fmt_speed(dsp), rel, verified])
    widths = [max(len(row[i]) for row in table) for i in range(len(hdr))]
    for k, row in enumerate(table):
        if k == 1:
            cells = ["-" * (widths[i] - 1) + ":" if a.endswith(":") else "-" * widths[i]
                     for i, a in enumerate(row)]
        else:
            cells = [c.rjust(widths[i]) if align[i].endswith(":") else c.ljust(widths[i])
                     for i, c in enumerate(row)]
        lines.append("| " + " | ".join(cells) + " |")
    busy = []
    for r in rows:
        for t, c in (("comp_s", "comp_cpu_s"), ("dec_s", "dec_cpu_s")):
            w, u = fnum(r.get(t)), fnum(r.get(c))
            if w and u and u > 0.05:
                busy.append(w / u)
    if busy and max(busy) > 1.10:
        lines.append("")
        lines.append(f"Note: on single-thread runs, wall time exceeded CPU time by up to {100 * (max(busy) - 1):.0f} % "
                     "(median {:.0f} %): the machine was busy, so speeds are lower bounds.".format(
                         100 * (sorted(busy)[len(busy) // 2] - 1)))
    if meta.get("skipped"):
        lines.append("")
        lines.append(f"Not measured: {meta['skipped']}")
    if notes:
        lines.append("")
        for i, n in enumerate(notes, 1):
            lines.append(f"[{i}] {n}  ")
    lines.append("")
    md_path = tsv_path[:-4] + ".md"
    with open(md_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return md_path


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def machine():
    model = ""
    for line in sh("LC_ALL=C lscpu").splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
            break
    return model or platform.processor() or "unknown CPU", os.cpu_count()


def assemble(cmd, extra):
    # The four standard corpora when present, plus any corpus named on the command line.
    names = [n for n in CORPUS_ORDER if os.path.exists(os.path.join(OUT, f"results-{n}.md"))]
    names += [n for n in extra if n not in names]
    mds = [os.path.join(OUT, f"results-{n}.md") for n in names]
    missing = [p for p in mds if not os.path.exists(p)]
    if missing:
        sys.exit("mkresults.py: missing " + ", ".join(missing))

    def key(p):
        name = os.path.basename(p)[len("results-"):-3]
        return (CORPUS_ORDER.index(name) if name in CORPUS_ORDER else len(CORPUS_ORDER), name)

    mds.sort(key=key)
    model, ncpu = machine()
    mem = sh("free -g | awk '/^Mem:/{print $2}'")
    versions = []
    for tsv in [p[:-3] + ".tsv" for p in mds]:
        if os.path.exists(tsv):
            meta, _ = read_tsv(tsv)
            for k in ("wavelz", "zstd", "lz4", "xz", "bgzip"):
                v = meta.get("ver_" + k)
                if v and (k, v) not in versions:
                    versions.append((k, v))
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = []
    out.append("# wavelz benchmark results")
    out.append("")
    out.append(f"- Machine: {model}, {ncpu} cores, {mem} GiB RAM, Linux {platform.release()}")
    out.append(f"- Assembled: {now} (each corpus below carries its own measurement date)")
    out.append("- Tools: " + (", ".join(v if v.startswith(k) else f"{k} {v}" for k, v in versions) or "?"))
    out.append("- Reproduce:")
    out.append("")
    out.append("  ```sh")
    out.append("  bench/corpora.sh          # builds bench/data/ from Debian packages")
    out.append(f"  {cmd}")
    out.append("  ```")
    out.append("")
    out.append("Method: ratio % = compressed size / original size × 100.  MB = 10^6 bytes; "
               "both speeds are original bytes per second of wall time, including process start.  "
               "Inputs are read from tmpfs; compressed output goes to tmpfs, decoded output to /dev/null.  "
               "Compression: best of up to 3 runs (repeated until >= 1 s in total); "
               "decompression: best of >= 3 runs (repeated until >= 2 s in total, at most 10).  "
               "Single-thread runs use `-T1` (zstd, xz, wavelz), `-@1` (bgzip); lz4 is single-threaded; "
               "zstd decodes with `--no-asyncio` (no I/O thread).  "
               "Every archive is decoded once more to a file and compared with `cmp` "
               "against the original; wavelz archives are also checked with `wavelz -t`.  "
               "Rows that only show a `-T0` compression speed were compressed with all cores "
               "to keep the run short (for zstd the output is identical to `-T1`; "
               "for xz `-T0` splits the input into blocks, so its ratio is slightly worse than `-T1`).")
    out.append("")
    out.append("`decode vs zstd -3` is the decompression speed divided by that of `zstd -3` on the same corpus.")
    out.append("")
    cmds = {}
    for tsv in [p[:-3] + ".tsv" for p in mds]:
        if os.path.exists(tsv):
            for r in read_tsv(tsv)[1]:
                cmds.setdefault(r["label"], [r.get("comp_cmd"), r.get("comp_t0_cmd"), r.get("dec_cmd")])
    if cmds:
        out.append("<details><summary>Exact commands (stdout goes to a tmpfs file when compressing, "
                   "to /dev/null when timing decompression)</summary>")
        out.append("")
        out.append("| codec | compress (1 thread) | compress (-T0) | decompress |")
        out.append("| --- | --- | --- | --- |")
        for label, cs in cmds.items():
            out.append(f"| {label} | " + " | ".join(f"`{c}`" if c else "—" for c in cs) + " |")
        out.append("")
        out.append("</details>")
        out.append("")
    for p in mds:
        with open(p, encoding="utf-8") as f:
            out.append(f.read().rstrip("\n"))
        out.append("")
    # Runs made elsewhere (the GPU host's CPU) or by other scripts; each file
    # carries its own heading, machine and command.
    import glob
    for p in sorted(glob.glob(os.path.join(HERE, "host", "*.md"))):
        with open(p, encoding="utf-8") as f:
            out.append(f.read().rstrip("\n"))
        out.append("")
    path = os.path.join(HERE, "RESULTS.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return path


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="op", required=True)
    t = sub.add_parser("table")
    t.add_argument("tsv", nargs="+")
    a = sub.add_parser("assemble")
    a.add_argument("--cmd", default="bench/run.sh")
    a.add_argument("names", nargs="*")
    args = ap.parse_args()
    if args.op == "table":
        for p in args.tsv:
            print(render_table(p))
    else:
        print(assemble(args.cmd, args.names))


if __name__ == "__main__":
    sys.exit(main())
