#!/usr/bin/env python3
"""Puts the server benchmark's pieces together (Benchmarks/server/bench.sh's last step):
reads the run folder's JSON files (wrk's, the probe's, the PostGIS peer's, the server's
/metrics snapshots and /proc readings), writes out/server-bench.json and prints one table,
each figure beside issue 41's target. Standard library only."""
import json
import os
import re
import sys

METRIC = re.compile(r'^(geofence_[a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$', re.M)


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def metrics(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {m.group(1) + (m.group(2) or ""): float(m.group(3)) for m in METRIC.finditer(f.read())}


def delta(folder, before, after):
    """What the server counted between two /metrics snapshots: fixes, refusals, events, commits."""
    a, b = metrics(folder, before), metrics(folder, after)
    d = {k: b[k] - a.get(k, 0.0) for k in b}
    commits = d.get("geofence_commit_requests_count", 0)
    return {
        "accepted": int(d.get("geofence_fixes_accepted_total", 0)),
        "rejected": {k.split('"')[1]: int(v) for k, v in d.items() if k.startswith("geofence_fixes_rejected_total") and v},
        "events": {k.split('"')[1]: int(v) for k, v in d.items() if k.startswith("geofence_events_total") and v},
        "commits": int(commits),
        "requests_per_commit": round(d.get("geofence_commit_requests_sum", 0) / commits, 2) if commits else None,
        "commit_ms": round(1000 * d.get("geofence_commit_duration_seconds_sum", 0) / commits, 3) if commits else None,
    }


def wrk_summary(run):
    if run is None:
        return None
    out = {k: run[k] for k in ("requests", "duration_s", "accepted", "rejected", "events", "bad_responses", "statuses", "errors")}
    out["requests_per_s"] = round(run["requests"] / run["duration_s"], 1)
    out["fixes_per_s"] = round(run["accepted"] / run["duration_s"], 1)
    out["latency_ms"] = run["latency_ms"]
    return out


def during_updates(wrk_run, updates):
    """wrk's completions inside each update: fixes/s, and the longest gap between completions."""
    timeline = wrk_run["timeline"] if wrk_run else []
    for update in updates:
        start, end = update["start"], update["end"]
        inside = sorted(t for t, _ in timeline if start <= t <= end)
        fixes = sum(a for t, a in timeline if start <= t <= end)
        edges = [start] + inside + [end]
        update["wrk_fixes_per_s_during"] = round(fixes / max(end - start, 1e-9), 1)
        update["wrk_longest_gap_ms"] = round(1000 * max(b - a for a, b in zip(edges, edges[1:])), 1)
    return updates


def main():
    folder, out_path = sys.argv[1], sys.argv[2]
    meta = load(folder, "meta.json")
    memory = load(folder, "memory.json") or {}
    ingest = wrk_summary(load(folder, "wrk-ingest.json"))
    probe = load(folder, "probe-ingest.json") or {}
    update_wrk = load(folder, "wrk-update.json")
    probe_update = load(folder, "probe-update.json") or {}
    single, bare = wrk_summary(load(folder, "wrk-single.json")), wrk_summary(load(folder, "wrk-bare.json"))
    peer = load(folder, "postgis.json")
    result = {
        "machine": meta,
        "batched_ingest": ingest, "batched_ingest_server_counts": delta(folder, "metrics-0.txt", "metrics-1.txt"),
        "probe_during_ingest": {k: probe.get(k) for k in ("requests", "accepted", "latency_ms", "errors")},
        "sse": probe.get("sse"),
        "fence_update": {"updates": during_updates(update_wrk, probe_update.get("updates", [])),
                         "ingest": wrk_summary(update_wrk), "server_counts": delta(folder, "metrics-1.txt", "metrics-2.txt"),
                         "probe_errors": probe_update.get("errors")},
        "single_fix": {"server": single, "bare": bare, "server_counts": delta(folder, "metrics-2.txt", "metrics-3.txt"),
                       "ratio": round(single["requests_per_s"] / bare["requests_per_s"], 3) if single and bare else None},
        "memory": memory, "postgis": peer,
        "server_exit_status": meta.get("server_exit_status") if meta else None,
    }
    if ingest and peer:
        result["ratio_server_postgis"] = round(ingest["fixes_per_s"] / peer["updates_per_s"], 2)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    # Written beside, then renamed: a reader never sees half a file, and a failed run leaves
    # the last one whole.
    temporary = out_path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, out_path)
    print_table(result)


def fmt(x, digits=1):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "{:,.{d}f}".format(x, d=digits)
    return "{:,}".format(x)


def print_table(r):
    rows = []  # (measure, value, target, ok)

    def row(name, value, target="", ok=None):
        rows.append((name, value, target, "" if ok is None else ("yes" if ok else "NO")))

    b, counts = r["batched_ingest"], r["batched_ingest_server_counts"]
    if b:
        lat = b["latency_ms"]
        row("1 batched ingest fixes/s (wrk)", fmt(b["fixes_per_s"], 0), ">= 300,000", b["fixes_per_s"] >= 300000)
        row("1 request p50 / p99 / p99.9 ms", "%s / %s / %s" % (fmt(lat["p50"]), fmt(lat["p99"]), fmt(lat["p999"])),
            "p99 <= 50", lat["p99"] <= 50)
        bad = b["rejected"] + b["bad_responses"] + sum(b["errors"].values())
        row("1 refused fixes / bad answers / socket errors", "%d / %d / %d" % (b["rejected"], b["bad_responses"],
            sum(b["errors"].values())), "0", bad == 0)
        per_k = 1000.0 * sum(counts["events"].values()) / counts["accepted"] if counts["accepted"] else 0
        row("1 server events per 1,000 fixes (%s)" % ", ".join("%s %d" % kv for kv in sorted(counts["events"].items())),
            fmt(per_k, 2))
        row("1 server: requests per group commit, commit ms", "%s, %s" % (fmt(counts["requests_per_commit"], 2),
            fmt(counts["commit_ms"], 2)))
    m = r["memory"]
    if m.get("devices"):
        per = m["per_device_bytes"]
        row("memory RSS start / after ingest / HWM MiB", "%s / %s / %s" % (fmt(m["rss_start_kb"] / 1024),
            fmt(m["rss_after_kb"] / 1024), fmt(m["hwm_after_kb"] / 1024)))
        row("memory per device (RSS growth / %s devices) B" % fmt(m["devices"]), fmt(per, 0), "<= 400", per <= 400)
    for i, u in enumerate(r["fence_update"]["updates"]):
        ans = u["answer"] if isinstance(u["answer"], dict) else {}
        row("3 fence update %d: seconds (status %d)" % (i + 1, u["status"]), fmt(u["seconds"], 3), "<= 1", u["seconds"] <= 1)
        row("3   +%s -%s, removal exits" % (ans.get("added", "?"), ans.get("removed", "?")), fmt(ans.get("removalExits")))
        d = u["ingest_during_ms"]
        # A closed-loop probe gets few requests into an update that stalls it: p99 is the max then.
        row("3   probe ingest during it: n, p50 / p99 ms", "%d, %s / %s" % (d["count"], fmt(d["p50"]), fmt(d["p99"])),
            "p99 < 100", d["p99"] is not None and d["p99"] < 100)
        row("3   wrk fixes/s during it, longest gap ms", "%s, %s" % (fmt(u["wrk_fixes_per_s_during"], 0),
            fmt(u["wrk_longest_gap_ms"])))
    uw, uc = r["fence_update"]["ingest"], r["fence_update"]["server_counts"]
    if uw:
        row("3 ingest over the update run: fixes/s, p99 ms", "%s, %s" % (fmt(uw["fixes_per_s"], 0), fmt(uw["latency_ms"]["p99"])))
        row("3 refused fixes in the update run (by reason)", json.dumps(uc["rejected"]) if uc["rejected"] else "0")
    s = r["sse"]
    if s:
        d = s["delivery_ms"]
        row("4 SSE delivery p50 / p99 ms (%d events)" % d["count"], "%s / %s" % (fmt(d["p50"]), fmt(d["p99"])),
            "p99 <= 50", d["p99"] is not None and d["p99"] <= 50)
        row("4 SSE events missing, read in all", "%d, %s" % (s["missing"], fmt(s["events_read"])), "0 missing", s["missing"] == 0)
    sf = r["single_fix"]
    for name, w in (("server", sf["server"]), ("bare Hummingbird", sf["bare"])):
        if w:
            lat = w["latency_ms"]
            row("2 single-fix %s req/s" % name, fmt(w["requests_per_s"], 0))
            row("2   p50 / p99 / p99.9 ms", "%s / %s / %s" % (fmt(lat["p50"], 2), fmt(lat["p99"], 2), fmt(lat["p999"], 2)),
                "p99 <= 10" if name == "server" else "", lat["p99"] <= 10 if name == "server" else None)
    if sf["ratio"] is not None:
        row("2 single-fix server / bare", fmt(sf["ratio"], 3), ">= 0.5", sf["ratio"] >= 0.5)
        srv = sf["server"]
        row("2 single-fix refused / bad answers", "%d / %d" % (srv["rejected"], srv["bad_responses"]), "0",
            srv["rejected"] + srv["bad_responses"] == 0)
    p = r["postgis"]
    if p:
        row("5 PostGIS trigger updates/s (%d-row transactions)" % p["batch"], fmt(p["updates_per_s"], 0))
        row("5   notifications per 1,000 updates", fmt(1000.0 * p["notifications"] / max(p["updated"], 1), 2))
        row("5   transaction p50 / p99 ms, notifications", "%s / %s, %s" % (fmt(p["transaction_ms"]["p50"]),
            fmt(p["transaction_ms"]["p99"]), fmt(p["notifications"])))
    if "ratio_server_postgis" in r:
        row("5 server fixes/s / PostGIS updates/s", fmt(r["ratio_server_postgis"], 2), ">= 10", r["ratio_server_postgis"] >= 10)
    problems = (r["probe_during_ingest"].get("errors") or []) + (r["fence_update"]["probe_errors"] or [])
    if s and s.get("error"):
        problems.append("SSE: " + s["error"])
    if problems:
        row("probe errors (first; all in the JSON)", "%d: %s" % (len(problems), problems[0][:60]), "none", False)
    meta = r["machine"] or {}
    row("server exit status after SIGTERM", fmt(meta.get("server_exit_status")), "0", meta.get("server_exit_status") == 0)
    widths = [max(len(x[i]) for x in rows + [("measure", "value", "target", "met")]) for i in range(4)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    print("geofence-server benchmark (%s, %s cores, background load %s%% CPU before the run%s)" % (
        meta.get("mode", "?"), meta.get("cores", "?"), meta.get("background_cpu_pct", "?"),
        ", server options: " + meta["server_args"] if meta.get("server_args") else ""))
    print(line(("measure", "value", "target", "met")))
    print(line(tuple("-" * w for w in widths)))
    for cells in rows:
        print(line(cells))
    # Missed targets are figures; wrong answers are failures (`make server-bench-smoke` in CI).
    broken = []
    for name, w in (("batched ingest", r["batched_ingest"]), ("update run", r["fence_update"].get("ingest")),
                    ("single-fix server", sf["server"])):
        if w and (w["rejected"] or w["bad_responses"] or any((w.get("errors") or {}).values())):
            broken.append("%s: %d refused, %d bad answers, socket errors %s" % (name, w["rejected"], w["bad_responses"], w.get("errors")))
    if s and (s["missing"] or s.get("error")):
        broken.append("SSE: %s missing, %s" % (s["missing"], s.get("error")))
    broken += problems
    if meta.get("server_exit_status") != 0:
        broken.append("server exit status %s" % meta.get("server_exit_status"))
    if broken:
        print("server-bench: wrong answers, not only missed targets:\n  " + "\n  ".join(broken), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
