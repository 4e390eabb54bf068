#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Turn the records of tools/bench/bench-guest.sh into results.json, a table
with ORDMA/rxe ratios and a plot (bandwidth and latency against size).

Usage: report.py RECORDS.tsv OUTDIR [TITLE]
"""
import json
import math
import os
import sys

LEGS = ("ordma", "rxe", "tcp")


def num(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return None if math.isnan(v) else v


def load(path):
    cols, recs = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("# "):
                cols = line[2:].split()
            elif line.strip() and cols:
                recs.append(dict(zip(cols, line.split())))
    return recs


def lower_is_better(unit):
    return unit in ("usec", "s/GB")


def ratio(row):
    o, x = row["ordma"], row["rxe"]
    if not o or not x:
        return None
    return round(x / o if lower_is_better(row["unit"]) else o / x, 2)


def build(recs):
    rows, order = {}, []

    def row(test, size, mtu, mode, qps, unit):
        key = (test, size, mtu, mode, qps)
        if key not in rows:
            rows[key] = {"test": test, "size": size, "unit": unit, "mtu": mtu,
                         "mode": mode, "qps": qps, "ordma": None, "rxe": None,
                         "tcp": None, "ratio": None, "lost_frames": {},
                         "nic_drops": {}, "retransmits": {}, "failed": []}
            order.append(key)
        return rows[key]

    # CPU a run of each tool costs without moving data (start-up, connection)
    # (the lower of the runs: the first run of a tool also loads it)
    setup = {}
    for r in recs:
        if r["mode"] == "setup":
            cost = (float(r["cpu_busy_s"]), float(r["cpu_kernel_s"]))
            old = setup.get(r["leg"], cost)
            setup[r["leg"]] = (min(old[0], cost[0]), min(old[1], cost[1]))
    for r in recs:
        if r["mode"] == "setup":
            continue
        leg, size, mtu = r["leg"], int(r["size"]), int(r["mtu"])
        qps, unit, value = int(r["qps"]), r["unit"], num(r["value"])
        if unit == "Mbit/s" and value == 0:
            value = None    # perftest's clock failed it (bench-guest.sh)
        test = r["test"]
        if test == "iperf3":
            # TCP crosses the same cable at the netdev's MTU: it belongs
            # beside ib_write_bw of the same message size, at every path MTU
            targets = [rows[k] for k in order
                       if k[0] == "ib_write_bw" and k[1] == size]
            if not targets:
                targets = [row("ib_write_bw", size, mtu, "poll", 1, unit)]
        else:
            targets = [row(test, size, mtu, r["mode"], qps, unit)]
        # the cable counts what it lost (wire_tx_drop + wire_rx_drop);
        # sent minus arrived is only an estimate (snapshots taken apart)
        lost = (int(r["wire_drops"]) if "wire_drops" in r
                else int(r["tx_frames"]) - int(r["wire_rx_frames"]))
        for t in targets:
            t[leg] = value
            t["lost_frames"][leg] = lost
            t["nic_drops"][leg] = int(r["nic_drops"])
            t["retransmits"][leg] = int(r["retransmits"])
            if r["rc"] != "0" or value is None:
                t["failed"].append(leg)
        if test.endswith("_lat"):
            p = row(test + " p99", size, mtu, r["mode"], qps, unit)
            p[leg] = num(r["p99"])
            p["lost_frames"][leg] = lost
        gb = int(r["bytes"]) / 1e9
        # CPU per GB from the fixed-duration write runs (less the cost of
        # a run that moves nothing) and from iperf3 (whose start costs
        # next to nothing) of the same size
        if test not in ("ib_write_bw_cpu", "iperf3") or gb <= 0 or not value:
            continue
        if test == "iperf3" and not any(k[0] == "ib_write_bw_cpu" and k[1] == size
                                        for k in order):
            continue
        base = setup.get(leg, (0, 0)) if test != "iperf3" else (0, 0)
        for i, (name, col) in enumerate((("guest CPU per GB", "cpu_busy_s"),
                                         ("guest kernel CPU per GB", "cpu_kernel_s"))):
            mtu_of = next(k[2] for k in order if k[0] == "ib_write_bw_cpu" and k[1] == size)
            c = row(f"{name} ib_write_bw", size, mtu_of, "poll", 1, "s/GB")
            c[leg] = round(max(float(r[col]) - base[i], 0) / gb, 2)
    out = []
    for k in order:
        rw = rows[k]
        rw["ratio"] = ratio(rw)
        if not rw["failed"]:
            del rw["failed"]
        out.append(rw)
    return out


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"


def table(rows, title):
    lines = [title,
             f"{'test':36} {'size':>8} {'mtu':>5} {'mode':>5} {'unit':>6} "
             f"{'ORDMA':>9} {'rxe':>9} {'TCP':>9} {'ratio':>6}  lost o/r/t"]
    for r in rows:
        lost = "/".join(str(r["lost_frames"].get(leg, "-")) for leg in LEGS)
        fail = f"  failed: {','.join(r['failed'])}" if r.get("failed") else ""
        lines.append(f"{r['test']:36} {r['size']:>8} {r['mtu']:>5} {r['mode']:>5} "
                     f"{r['unit']:>6} {fmt(r['ordma']):>9} {fmt(r['rxe']):>9} "
                     f"{fmt(r['tcp']):>9} {fmt(r['ratio']):>6}  {lost}{fail}")
    lines.append("ratio: ORDMA/rxe for bandwidth, rxe/ORDMA for latency and CPU, "
                 "so above 1 means ORDMA is better; lost: frames the cable lost "
                 "(ORDMA/rxe/TCP legs)")
    return "\n".join(lines)


def plot(rows, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no plot: matplotlib is missing (Debian: python3-matplotlib)"
    fig, (bw, lat) = plt.subplots(1, 2, figsize=(13, 5))
    styles = {"ordma": "-", "rxe": "--", "tcp": ":"}

    def series(ax, keep, label_of):
        groups = {}
        for r in rows:
            if keep(r):
                groups.setdefault(label_of(r), []).append(r)
        # one colour per series, one line style per leg
        for i, (label, rs) in enumerate(sorted(groups.items())):
            rs.sort(key=lambda r: r["size"])
            for leg in LEGS:
                pts = [(r["size"], r[leg]) for r in rs if r[leg]]
                if pts and (leg != "tcp" or label.startswith("ib_write_bw")):
                    ax.plot(*zip(*pts), styles[leg], color=f"C{i % 10}", marker="o",
                            markersize=3, label=f"{leg} {label}")

    series(bw, lambda r: r["unit"] == "Mbit/s" and r["test"].endswith("_bw"),
           lambda r: f"{r['test']} mtu {r['mtu']}")
    series(lat, lambda r: r["unit"] == "usec" and not r["test"].endswith("p99"),
           lambda r: f"{r['test']} {r['mode']}")
    for ax, ylabel in ((bw, "Mbit/s"), (lat, "usec (typical)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    bw.set_title("bandwidth")
    lat.set_title("latency")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return f"plot: {path}"


def main():
    records, outdir = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "ORDMA vs rxe vs TCP"
    rows = build(load(records))
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"title": title, "results": rows}, f, indent=1)
    text = table(rows, title)
    with open(os.path.join(outdir, "results.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"results: {os.path.join(outdir, 'results.json')}")
    print(plot(rows, os.path.join(outdir, "bench.png"), title))


if __name__ == "__main__":
    main()
