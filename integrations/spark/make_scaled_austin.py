#!/usr/bin/env python3
"""Writes N copies of the Austin fixes as one CSV, each copy with its own device ids.

    python3 integrations/spark/make_scaled_austin.py --copies 20 --output /tmp/austin20.csv

Copy k renames device "capmetro-10101" to "capmetro-10101-k" (k from 0), so the copies are
distinct devices with the same tracks: the events are N times the Austin events, and the
file is the same bytes on every run (the benchmark and `make spark-test` rebuild it).
"""
import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--input", default=os.path.join(here, "..", "..", "data", "austin", "capmetro_avl_traces.csv"))
    parser.add_argument("--copies", type=int, required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    with open(args.input, "rb") as f:
        header = f.readline()
        rows = f.read().splitlines()
    if header.split(b",")[0].strip() != b"device_id":
        sys.exit(f"{args.input}: expected device_id as the first column")
    tmp = args.output + ".tmp"
    with open(tmp, "wb") as out:
        out.write(header)
        for k in range(args.copies):
            suffix = b"-%d," % k
            out.write(b"\n".join(device + suffix + rest for device, rest in (r.split(b",", 1) for r in rows if r)))
            out.write(b"\n")
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
