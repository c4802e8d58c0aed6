#!/usr/bin/env python3
"""Generate the demo workspace's metrics recording from the same simulated incident.

Deterministic, like generate.py, whose simulation it runs (the same seeds, so
the same payments, scans and gateway answers the logs tell of): running it
twice gives a byte-identical file. Run it from anywhere:

    python3 examples/demo/tools/generate_metrics.py          # rewrite metrics/incident.om
    python3 examples/demo/tools/generate_metrics.py --check  # also verify the story's shape

The recording is what a Prometheus scraping every 15 s would have kept from
09:00 to 10:30 UTC (OpenMetrics text, timestamps in seconds, `# EOF` last;
examples/demo/tools/serve-metrics serves it):

  hikaricp_connections_active{service="payment-service",pool="HikariPool-1"}
      connections in use when scraped, summed over the serving pods (the pools
      of the logs' DataSourceMonitor lines): 0-1 before 10:02 (a payment holds
      one for ~15 ms), climbing from 10:05, at or near the maximum from ~10:07.
  hikaricp_connections_max{service="payment-service",pool="HikariPool-1"}
      2 pods x maximumPoolSize 8 = 16, always.
  mysql_query_duration_seconds{service="payment-db",
                               digest="PaymentRecordMapper.selectRecentByUserId",
                               quantile="0.99"}
      the p99 of the slow log's Query_time for the new query over the last
      minute; absent before its first run (the query is new in v2.3.1).
  http_server_error_ratio{service="gateway",route="POST /api/v1/orders"}
      5xx among the gateway's answers of the last minute: 0 before 10:03, 0.9-1
      from 10:06 (the rest are 400s; no sample for a minute without an answer).
  distractors that stay flat: process_cpu_usage_ratio of inventory-service,
  hikaricp_connections_active of order-service's pool, the free bytes of
  payment-db's /data.
"""

import argparse
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True   # no __pycache__ left in the workspace
import generate as sim  # noqa: E402  (the logs' simulation, beside this file)

OUT = os.path.join(sim.DEMO, "metrics", "incident.om")
EPOCH_0730 = 1795937400      # 2026-11-29T07:30:00Z, sim.START as Unix seconds
FIRST = sim.hms(9, 0)        # the recording's first sample
STEP = 15.0                  # the scrape interval
WINDOW = 60.0                # the trailing window of the quantile and the ratio
DATA_DISK_BYTES = 1_000_000_000_000   # payment-db's /data, 1 TB
ROW_BYTES = 180              # payment_record bytes per row, data and indexes
R_NOISE = random.Random(sim.SEED * 1000 + 7)   # the distractors' jitter only

POOL = 'service="payment-service",pool="HikariPool-1"'
QUERY = ('service="payment-db",digest="PaymentRecordMapper.selectRecentByUserId",'
         'quantile="0.99"')
ROUTE = 'service="gateway",route="POST /api/v1/orders"'


def unix(t):
    return int(EPOCH_0730 + (t - sim.START))


def number(x):
    """A sample value: integers bare, others rounded to 6 significant digits."""
    if x == int(x):
        return str(int(x))
    return f"{x:.6g}"


def sample_times():
    t = FIRST
    while t < sim.END:
        yield t
        t += STEP


# ---------------------------------------------------------------- the series

def pool_active(t):
    return sum(pod.stats(t)[0] for pod in sim.PAY_PODS if pod.serving(t))


def pool_max():
    return 2 * sim.PAY_POOL


def query_p99(t):
    """p99 of the new query's durations that ended in (t - WINDOW, t], or None."""
    done = sorted(e - s for s, e in sim.DB.scans if t - WINDOW < e <= t)
    if not done:
        return None
    return round(done[min(len(done) - 1, math.ceil(0.99 * len(done)) - 1)], 3)


def gateway_answers():
    """(time, status) of every POST /api/v1/orders the gateway answered."""
    answers = []
    for ms, _, _, message, _ in sim.GW.rows:
        if '"POST /api/v1/orders HTTP/1.1" ' in message:
            status = int(message.split('"POST /api/v1/orders HTTP/1.1" ')[1].split(" ")[0])
            answers.append((ms / 1000.0, status))
    return sorted(answers)


def error_ratio(answers, t):
    window = [status for when, status in answers if t - WINDOW < when <= t]
    if not window:
        return None
    return round(sum(1 for status in window if status >= 500) / len(window), 4)


def recording():
    sim.simulate()
    answers = gateway_answers()
    series = {   # name -> (type, help, [(labels, [(t, value)])])
        "hikaricp_connections_active": ("gauge", "Active connections", [(POOL, []),
                                        ('service="order-service",pool="order-pool"', [])]),
        "hikaricp_connections_max": ("gauge", "Max connections", [(POOL, [])]),
        "mysql_query_duration_seconds": ("gauge", "Query duration quantiles over the last minute",
                                         [(QUERY, [])]),
        "http_server_error_ratio": ("gauge", "Share of 5xx answers over the last minute",
                                    [(ROUTE, [])]),
        "process_cpu_usage_ratio": ("gauge", "CPU used by the process",
                                    [('service="inventory-service"', [])]),
        "node_filesystem_avail_bytes": ("gauge", "Filesystem space available",
                                        [('service="payment-db",mountpoint="/data"', [])]),
    }

    def put(name, index, t, value):
        if value is not None:
            series[name][2][index][1].append((t, value))

    for t in sample_times():
        put("hikaricp_connections_active", 0, t, pool_active(t))
        put("hikaricp_connections_active", 1, t, R_NOISE.randint(3, 6))
        put("hikaricp_connections_max", 0, t, pool_max())
        put("mysql_query_duration_seconds", 0, t, query_p99(t))
        put("http_server_error_ratio", 0, t, error_ratio(answers, t))
        put("process_cpu_usage_ratio", 0, t, round(R_NOISE.uniform(0.18, 0.26), 3))
        put("node_filesystem_avail_bytes", 0, t,
            DATA_DISK_BYTES - 412_000_000_000 - sim.DB.rows_at(t) * ROW_BYTES)
    return series


def render(series):
    out = []
    for name, (kind, help_text, members) in series.items():
        out.append(f"# TYPE {name} {kind}")
        out.append(f"# HELP {name} {help_text}.")
        for labels, points in members:
            for t, value in points:
                out.append(f"{name}{{{labels}}} {number(value)} {unix(t)}")
    out.append("# EOF")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- --check

def check(series):
    """The story's shape, as examples/demo/GROUND_TRUTH.md tells it, and every
    series listed there."""
    def points(name, index=0):
        return series[name][2][index][1]

    problems = []
    active = points("hikaricp_connections_active")
    before = [v for t, v in active if t < sim.DEPLOY]
    if not before or max(before) > 2:
        problems.append(f"payment pool before 10:02 above 2: {sorted(set(before))}")
    full = [v for t, v in active if t >= sim.hms(10, 7)]
    median = sorted(full)[len(full) // 2] if full else 0
    if median < pool_max() - 1 or min(full) < pool_max() // 2:
        problems.append(f"payment pool not near {pool_max()} from 10:07: {sorted(set(full))}")
    p99 = points("mysql_query_duration_seconds")
    if not p99 or not sim.DEPLOY < p99[0][0] <= sim.hms(10, 3) or not 4 < p99[0][1] < 10:
        problems.append(f"the new query's first p99 is not 4-10 s at 10:02-10:03: {p99[:1]}")
    late = [v for t, v in p99 if t >= sim.hms(10, 10)]
    if not late or min(late) < 55 or max(late) > 95:
        problems.append(f"the new query's p99 from 10:10 not 55-95 s: {min(late)}-{max(late)}")
    ratio = points("http_server_error_ratio")
    calm = [v for t, v in ratio if t < sim.hms(10, 3)]
    if any(v > 0.05 for v in calm):
        problems.append(f"gateway error ratio before 10:03 above 0.05: {max(calm)}")
    broken = [v for t, v in ratio if t >= sim.hms(10, 7)]
    if not broken or min(broken) < 0.85:
        problems.append(f"gateway error ratio after 10:07 below 0.85: {min(broken, default=None)}")
    with open(os.path.join(sim.DEMO, "GROUND_TRUTH.md"), encoding="utf-8") as f:
        truth = f.read()
    for name, (_, _, members) in series.items():
        for labels, _ in members:
            if f"`{name}{{{labels}}}`" not in truth:
                problems.append(f"GROUND_TRUTH.md does not list {name}{{{labels}}}")
    for problem in problems:
        print(f"check: {problem}", file=sys.stderr)
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="also check the story's shape")
    args = ap.parse_args()

    series = recording()
    text = render(series)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    samples = sum(len(points) for _, _, members in series.values() for _, points in members)
    print(f"metrics: {samples} samples, {len(text)} bytes")
    if args.check and not check(series):
        sys.exit(1)


if __name__ == "__main__":
    main()
