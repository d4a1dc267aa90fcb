#!/usr/bin/env python3
"""The measuring client beside wrk's load (Benchmarks/server/bench.sh, steps 3 and 4).

- Posts 1,000-fix NDJSON batches of its own devices (p0..), one at a time with a pause
  between them, and times each request: wrk gives only a whole run's latency histogram, and
  step 3 needs the latency of the requests that overlap a fence update.
- With --sse, subscribes to GET /v1/events (Accept: text/event-stream) from the current end
  of the log and notes when each event arrives; an event's delivery latency is the time from
  the end of the POST response that reported it (its "seq") to its arrival on the stream.
  Events are read on a raw socket in large reads, so the reader keeps up with the whole load's
  events (wrk's too), not only the probe's.
- With --update OFFSET:FILE (repeatable), PUTs FILE to /v1/fences OFFSET seconds after start
  and times it.
Writes one JSON object to --out. Standard library only.
"""
import argparse
import bisect
import http.client
import json
import re
import socket
import threading
import time

from benchlib import Dechunker, Fleet, summary_ms, wall_ms

SEQ = re.compile(rb'"seq":(\d+)')


class SSEReader(threading.Thread):
    """Reads the event stream; `marks` holds (arrival time, highest id so far), one per read."""

    def __init__(self, host, port, after):
        super().__init__(daemon=True)
        self.sock = socket.create_connection((host, port))
        self.sock.sendall(("GET /v1/events?after=%d HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n\r\n"
                           % (after, host, port)).encode())
        self.times, self.ids = [], []
        self.events = 0
        self.error = None

    def run(self):
        head, chunked, decoder, pending = b"", False, Dechunker(), b""
        try:
            while True:
                data = self.sock.recv(1 << 20)
                now = time.time()
                if not data:
                    return
                if head is not None:  # the response's header, once
                    head += data
                    if b"\r\n\r\n" not in head:
                        continue
                    header, data = head.split(b"\r\n\r\n", 1)
                    if not header.startswith(b"HTTP/1.1 200"):
                        self.error = header.split(b"\r\n")[0].decode()
                        return
                    chunked = b"transfer-encoding: chunked" in header.lower()
                    head = None
                pending += decoder.feed(data) if chunked else data
                end = pending.rfind(b"\n\n")
                if end < 0:
                    continue
                complete, pending = b"\n" + pending[:end], pending[end + 2:]
                at = complete.rfind(b"\nid: ")
                if at < 0:
                    continue  # only the opening comment so far
                self.events += complete.count(b"\nid: ")
                self.times.append(now)
                self.ids.append(int(complete[at + 5:complete.index(b"\n", at + 1)]))
        except OSError as error:
            self.error = str(error)

    def arrival(self, seq):
        """When an event with this seq (or a later one) had arrived; None if it never did."""
        i = bisect.bisect_left(self.ids, seq)
        return self.times[i] if i < len(self.ids) else None


def put_update(host, port, path, out, errors):
    with open(path, "rb") as f:
        body = f.read()
    conn = http.client.HTTPConnection(host, port, timeout=120)
    start = time.time()
    try:
        conn.request("PUT", "/v1/fences", body=body, headers={"Content-Type": "application/geo+json"})
        response = conn.getresponse()
        text = response.read()
        end = time.time()
        answer = json.loads(text) if response.status == 200 else text.decode(errors="replace")[:300]
        out.append({"file": path.split("/")[-1], "start": start, "end": end, "seconds": round(end - start, 4),
                    "status": response.status, "answer": answer})
    except (OSError, ValueError) as error:
        errors.append("PUT /v1/fences: %s" % error)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--duration", type=float, required=True, help="seconds")
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--devices", type=int, default=2000, help="the probe's own devices, p0..")
    p.add_argument("--pause", type=float, default=0.05, help="seconds between the probe's requests")
    p.add_argument("--sse", action="store_true")
    p.add_argument("--update", action="append", default=[], help="OFFSET:FILE, a PUT /v1/fences")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    host = "127.0.0.1"
    conn = http.client.HTTPConnection(host, args.port, timeout=60)
    conn.request("GET", "/healthz")
    health = json.loads(conn.getresponse().read())
    reader = None
    if args.sse:
        reader = SSEReader(host, args.port, health["nextSeq"] - 1)
        reader.start()
    fleet = Fleet("p", args.devices, args.seed)
    updates, errors, threads = [], [], []
    begin = time.time()
    for spec in args.update:
        offset, path = spec.split(":", 1)
        timer = threading.Timer(float(offset), put_update, (host, args.port, path, updates, errors))
        timer.start()
        threads.append(timer)
    posts = []  # (start, end, accepted, seqs)
    while time.time() - begin < args.duration:
        body = fleet.ndjson(args.batch, wall_ms())
        start = time.time()
        conn.request("POST", "/v1/fixes", body=body, headers={"Content-Type": "application/x-ndjson"})
        response = conn.getresponse()
        text = response.read()
        end = time.time()
        if response.status != 200:
            errors.append("POST /v1/fixes: %d %s" % (response.status, text[:200]))
            continue
        accepted = int(re.match(rb'\{"accepted":(\d+)', text).group(1))
        posts.append((start, end, accepted, [int(s) for s in SEQ.findall(text)]))
        time.sleep(args.pause)
    for timer in threads:
        timer.join()
    time.sleep(1.0 if reader else 0)  # the last events' way to the stream
    result = {"requests": len(posts), "batch": args.batch, "accepted": sum(x[2] for x in posts),
              "latency_ms": summary_ms([e - s for s, e, _, _ in posts]), "updates": updates, "errors": errors}
    for update in updates:
        during = [e - s for s, e, _, _ in posts if s < update["end"] and e > update["start"]]
        update["ingest_during_ms"] = summary_ms(during)
    if reader:
        delays, missing = [], 0
        for _, end, _, seqs in posts:
            for seq in seqs:
                arrived = reader.arrival(seq)
                if arrived is None:
                    missing += 1
                else:
                    delays.append(arrived - end)
        result["sse"] = {"events_read": reader.events, "probe_events": len(delays) + missing, "missing": missing,
                         "delivery_ms": summary_ms(delays), "error": reader.error,
                         "delivered_before_response": sum(1 for d in delays if d < 0)}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
