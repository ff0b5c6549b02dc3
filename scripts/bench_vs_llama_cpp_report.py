"""The table of scripts/bench-vs-llama-cpp from the JSON reports it collected in DIR.

Usage: bench_vs_llama_cpp_report.py DIR COMMIT DTYPE FLOOR MODEL... -- THREADS...
Exit 1 when FLOOR > 0 and a model's decode ratio (each side at its better thread count) is
below it; exit 2 when a report is missing or unreadable.
"""
import glob
import json
import os
import statistics
import sys


def samples(paths, side, test):
    """Every tokens/s sample of `test` ('pp' or 'tg') across the rounds' reports."""
    out = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        rows = doc if side == "llama" else doc["results"]
        for row in rows:
            is_tg = row["n_gen"] > 0
            if (test == "tg") == is_tg and (is_tg or row["n_prompt"] == 512):
                out += row["samples_ts"]
    return out


def stats(xs):
    return statistics.median(xs), min(xs), max(xs)


def main(argv):
    d, commit, dtype, floor = argv[1], argv[2], argv[3], float(argv[4])
    split = argv.index("--")
    models, threads = argv[5:split], argv[split + 1:]
    stream = [b["bytes_per_second"] for p in glob.glob(os.path.join(d, "stream.*.json"))
              for b in json.load(open(p))["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    cpu = build = "?"
    print(f"commit {commit}, dtype {dtype}, streaming read (all threads) "
          f"{statistics.median(stream) / 1e9:.1f} GB/s" if stream else f"commit {commit}, dtype {dtype}")
    print("| model | threads | test | vt tok/s (median [min-max]) | llama.cpp tok/s | ratio | vt GB/s (share of stream) |")
    print("|---|---|---|---|---|---|---|")
    best = {}
    failed = []
    missing = []  # runs llama-bench gave no figure for: nothing compared there
    for m in models:
        size = os.path.getsize(os.path.join(d, f"{m}.gguf"))
        for t in threads:
            vt_paths = sorted(glob.glob(os.path.join(d, f"vt.{m}.{t}.*.json")))
            ll_paths = sorted(glob.glob(os.path.join(d, f"llama.{m}.{t}.*.json")))
            if not vt_paths:
                print(f"bench-vs-llama-cpp: no vt-bench reports for {m} at {t} threads in {d}", file=sys.stderr)
                return 2
            if not ll_paths:
                missing.append(f"{m} at {t} thread(s)")
                print(f"| {m} | {t} | all | (see vt-bench's reports) | llama-bench failed | - | |")
                continue
            with open(ll_paths[0]) as f:
                first = json.load(f)
            if first:
                cpu, build = first[0].get("cpu_info", "?"), first[0].get("build_commit", "?")
            for test in ("pp", "tg"):
                v, l = samples(vt_paths, "vt", test), samples(ll_paths, "llama", test)
                if not v or not l:
                    continue
                (vm, vlo, vhi), (lm, llo, lhi) = stats(v), stats(l)
                bw = ""
                # Decode reads every weight once per token (dense: the whole file but one
                # embedding row; MoE reads only its routed experts, so no figure for it).
                if test == "tg" and m != "moe":
                    gbs = size * vm / 1e9
                    share = f" ({size * vm / statistics.median(stream):.2f}x)" if stream else ""
                    bw = f"{gbs:.1f}{share}"
                print(f"| {m} | {t} | {test}{512 if test == 'pp' else 128} | {vm:.1f} [{vlo:.1f}-{vhi:.1f}] | "
                      f"{lm:.1f} [{llo:.1f}-{lhi:.1f}] | {vm / lm:.2f}x | {bw} |")
                b = best.setdefault((m, test), [0.0, 0.0])
                b[0], b[1] = max(b[0], vm), max(b[1], lm)
    kind = os.environ.get("VT_LLAMA_BUILD", "native build: scripts/install-llama-cpp")
    print(f"llama.cpp: llama-bench build {build}, CPU {cpu} ({kind})")
    for (m, test), (v, l) in sorted(best.items()):
        print(f"best thread count: {m} {test}: {v:.1f} vs {l:.1f} = {v / l:.2f}x")
        if floor > 0 and test == "tg" and v < floor * l:
            failed.append(f"{m} decode {v / l:.2f}x < floor {floor}")
    for f in failed:
        print(f"bench-vs-llama-cpp: {f}", file=sys.stderr)
    if missing:
        print("bench-vs-llama-cpp: no llama.cpp figure for " + ", ".join(missing) + ": not compared", file=sys.stderr)
        return 3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
