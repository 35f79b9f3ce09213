"""Log anomaly detection: templates per minute, IsolationForest, new-template alerts."""
import pickle
import re
import sys
import time
from collections import Counter

import numpy as np
from sklearn.ensemble import IsolationForest

LINE = re.compile(r"^(?P<ts>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}):\d{2}\S*\s+(?P<level>[A-Z]+)\s+(?P<msg>.*)$")
VARIABLE = [(re.compile(r"\b[0-9a-f]{8,}\b"), "<hex>"), (re.compile(r"\b\d+(\.\d+)?\b"), "<num>"),
            (re.compile(r"\"[^\"]*\""), "<str>"), (re.compile(r"\S+@\S+"), "<email>")]

def template(message: str) -> str:
    for pattern, token in VARIABLE:
        message = pattern.sub(token, message)
    return message

def minutes(lines):
    """Counts of each (level, template) per minute."""
    buckets: dict[str, Counter] = {}
    for line in lines:
        m = LINE.match(line)
        if m:
            buckets.setdefault(m["ts"], Counter())[(m["level"], template(m["msg"]))] += 1
    return buckets

def features(counts: Counter, vocabulary: list) -> list[float]:
    return [counts.get(t, 0) for t in vocabulary] + [sum(counts.values()),
            sum(v for (level, _), v in counts.items() if level == "ERROR")]

def train(log_path: str, model_path: str) -> None:
    buckets = minutes(open(log_path, encoding="utf8", errors="replace"))
    vocabulary = sorted({t for c in buckets.values() for t in c})
    x = np.array([features(c, vocabulary) for c in buckets.values()])
    forest = IsolationForest(n_estimators=200, contamination=0.01, random_state=0).fit(x)
    pickle.dump({"forest": forest, "vocabulary": vocabulary}, open(model_path, "wb"))
    print(f"trained on {len(x)} minutes, {len(vocabulary)} templates")

def watch(log_path: str, model_path: str) -> None:
    model = pickle.load(open(model_path, "rb"))
    known = set(model["vocabulary"])
    with open(log_path, encoding="utf8", errors="replace") as f:
        f.seek(0, 2)
        while True:
            time.sleep(60)
            for minute, counts in minutes(f.readlines()).items():
                new = [t for t in counts if t not in known]
                score = model["forest"].decision_function([features(counts, model["vocabulary"])])[0]
                if new:
                    print(f"ALERT {minute}: {len(new)} new templates, e.g. {new[0][1][:100]}")
                    known.update(new)
                if score < 0:
                    print(f"ALERT {minute}: unusual volume (score {score:.3f}, {sum(counts.values())} lines)")

if __name__ == "__main__":
    {"train": train, "watch": watch}[sys.argv[1]](sys.argv[2], sys.argv[3])
