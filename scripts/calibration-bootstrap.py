"""The percentile bootstrap under the same swap null as examples/calibration.rs, for the
guide's note on an earlier, lost measurement (docs/guide.md, "Segments and honest
statistics"). Needs numpy; reads the reports scripts/calibration.sh writes:

    python scripts/calibration-bootstrap.py target/calibration

For stemming nDCG@10 at n = 50 and HNSW MRR@10 at n = 100 it prints how often the
percentile bootstrap's 95% interval excludes 0 and how often it holds 0 when each
simulated comparison swaps each drawn query with probability 1/2 (the null), and two
ways of centring the null wrongly: swapping the pool once and then resampling it, and
asking the interval to hold the pool's original mean delta instead of 0.
"""
import json
import sys

import numpy as np

S, B = 2000, 1000
rng = np.random.default_rng(1)


def pool(path, key):
    with open(path) as f:
        return np.array([r["delta"][key] for r in json.load(f)["per_query"]])


def simulate(x, n, truth=0.0, swap_once=False):
    once = x * rng.choice([-1, 1], size=x.size)
    outside = held = 0
    for _ in range(S):
        s = rng.choice(once, n) if swap_once else rng.choice(x, n) * rng.choice([-1, 1], size=n)
        lo, hi = np.quantile(rng.choice(s, (B, n)).mean(axis=1), [0.025, 0.975])
        outside += not (lo <= 0 <= hi)
        held += lo <= truth <= hi
    return outside / S, held / S


folder = sys.argv[1] if len(sys.argv) > 1 else "target/calibration"
for name, report, key, n in [
    ("stemming nDCG@10", "stemming.json", "ndcg", 50),
    ("HNSW MRR@10", "hnsw.json", "rr", 100),
]:
    x = pool(f"{folder}/{report}", key)
    outside, held = simulate(x, n)
    print(f"{name}, n = {n} (pool mean delta {x.mean():+.4f}):")
    print(f"  per-query swap: 0 outside {outside:.3f}, 0 held {held:.3f}")
    print(f"  pool swapped once, then resampled: 0 outside {simulate(x, n, swap_once=True)[0]:.3f}")
    print(f"  pool's original mean held: {simulate(x, n, truth=x.mean())[1]:.3f}")
