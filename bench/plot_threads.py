#!/usr/bin/env python3
"""Plot and tabulate bench/threads.sh output: decode GB/s against threads.

usage: plot_threads.py IN.csv OUT.png OUT.md [TITLE]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "wavelz": "wavelz -3, one archive",
    "zstd-3-1MiB": "zstd -3, 1 MiB frames",
    "lz4-1MiB": "lz4, 1 MiB frames",
    "zstd-3": "zstd -3, one frame",
    "memcpy": "memcpy",
}


def main():
    src, png, md = sys.argv[1:4]
    title = sys.argv[4] if len(sys.argv) > 4 else ""
    with open(src) as f:
        machine = f.readline().lstrip("# ").strip()
        rows = list(csv.DictReader(f))
    files = sorted({r["file"] for r in rows}, key=lambda x: [r["file"] for r in rows].index(x))
    fig, axes = plt.subplots(1, len(files), figsize=(6 * len(files), 4.5), squeeze=False)
    lines = [f"{machine}", ""]
    for ax, name in zip(axes[0], files):
        mine = [r for r in rows if r["file"] == name]
        for codec in ["wavelz", "zstd-3-1MiB", "lz4-1MiB", "memcpy", "zstd-3"]:
            pts = sorted((int(r["threads"]), float(r["gbps"])) for r in mine if r["codec"] == codec)
            if not pts:
                continue
            ratio = next(float(r["ratio_pct"]) for r in mine if r["codec"] == codec)
            label = f"{LABELS[codec]} ({ratio:.1f}%)" if codec != "memcpy" else "memcpy"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label,
                    linestyle=":" if codec == "memcpy" else ("none" if len(pts) == 1 else "-"))
        ax.set_title(f"{name} {title}".strip())
        ax.set_xlabel("threads")
        ax.set_ylabel("decode GB/s (memory to memory)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        # table
        threads = sorted({int(r["threads"]) for r in mine if r["codec"] == "wavelz"})
        get = {(r["codec"], int(r["threads"])): float(r["gbps"]) for r in mine}
        lines.append(f"**{name}** (ratio: " + ", ".join(
            f"{c} {next(float(r['ratio_pct']) for r in mine if r['codec'] == c):.2f}%"
            for c in ["wavelz", "zstd-3", "zstd-3-1MiB", "lz4-1MiB"] if any(r["codec"] == c for r in mine)) + ")")
        lines.append("")
        # "+ck": frames carrying zstd's XXH64 content checksum, checked on
        # decode, as the zstd CLI writes them (wavelz always checks XXH3).
        ck = any(r["codec"] == "zstd-3-1MiB+ck" for r in mine)
        lines.append("| threads | wavelz GB/s | vs own T=1 | zstd -3 1 MiB frames | wavelz / zstd frames |"
                     + (" zstd frames + checksum | wavelz / those |" if ck else "")
                     + " lz4 1 MiB frames | memcpy |")
        lines.append("| ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if ck else "") + " ---: | ---: |")
        w1 = get.get(("wavelz", 1))
        for t in threads:
            w = get.get(("wavelz", t))
            z = get.get(("zstd-3-1MiB", t))
            zc = get.get(("zstd-3-1MiB+ck", t))
            lines.append(f"| {t} | {w:.2f} | {w / w1:.2f}x | {z:.2f} | {w / z:.2f}x | "
                         + (f"{zc:.2f} | {w / zc:.2f}x | " if ck else "")
                         + f"{get.get(('lz4-1MiB', t), 0):.2f} | {get.get(('memcpy', t), 0):.1f} |")
        pad = " |" * (7 if ck else 5)
        for codec, what in [("zstd-3", "zstd -3 one frame, 1 thread"),
                            ("zstd-3+ck", "zstd -3 one frame + checksum, 1 thread")]:
            z1 = get.get((codec, 1))
            if z1:
                lines.append(f"| {what} | {z1:.2f} | wavelz T=1 / that: {w1 / z1:.2f}x" + pad)
        lines.append("")
    fig.tight_layout()
    fig.savefig(png, dpi=90)
    with open(md, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
