"""Sudoku solver (constraint propagation + backtracking) and puzzle generator with grading."""
import argparse
import random

DIGITS = set("123456789")
PEERS = [set() for _ in range(81)]
for i in range(81):
    r, c = divmod(i, 9)
    for j in range(81):
        rr, cc = divmod(j, 9)
        if j != i and (rr == r or cc == c or (rr // 3, cc // 3) == (r // 3, c // 3)):
            PEERS[i].add(j)

def candidates(grid: list[str], i: int) -> set[str]:
    return DIGITS - {grid[j] for j in PEERS[i]}

def solve(grid: list[str], stats: dict, limit: int = 1) -> list[list[str]]:
    """Returns up to `limit` solutions; stats['guesses'] counts backtracking branches."""
    grid = grid[:]
    changed = True
    while changed:  # propagate naked singles
        changed = False
        for i in range(81):
            if grid[i] == ".":
                cand = candidates(grid, i)
                if not cand:
                    return []
                if len(cand) == 1:
                    grid[i] = cand.pop()
                    changed = True
    empty = [i for i in range(81) if grid[i] == "."]
    if not empty:
        return [grid]
    cell = min(empty, key=lambda i: len(candidates(grid, i)))  # most constrained first
    solutions = []
    for d in sorted(candidates(grid, cell)):
        stats["guesses"] = stats.get("guesses", 0) + 1
        grid[cell] = d
        solutions += solve(grid, stats, limit - len(solutions))
        if len(solutions) >= limit:
            break
    return solutions

def generate(difficulty: str, seed: int | None = None) -> tuple[str, str]:
    rng = random.Random(seed)
    base = list("." * 81)
    for box in range(3):  # fill the diagonal boxes at random, then solve for a full grid
        digits = rng.sample(sorted(DIGITS), 9)
        for k, d in enumerate(digits):
            base[(box * 3 + k // 3) * 9 + box * 3 + k % 3] = d
    full = solve(base, {})[0]
    target = {"easy": 38, "medium": 30, "hard": 25}[difficulty]
    puzzle = full[:]
    for i in rng.sample(range(81), 81):
        if sum(c != "." for c in puzzle) <= target:
            break
        kept, puzzle[i] = puzzle[i], "."
        if len(solve(puzzle, {}, limit=2)) != 1:
            puzzle[i] = kept  # removing this clue would make the solution ambiguous
    return "".join(puzzle), grade(puzzle)

def grade(puzzle: list[str]) -> str:
    stats: dict = {}
    solve(puzzle, stats)
    g = stats.get("guesses", 0)
    return "easy" if g == 0 else "medium" if g < 10 else "hard"

def show(grid: str) -> str:
    rows = [" ".join(grid[r * 9:(r + 1) * 9]) for r in range(9)]
    return "\n".join(rows)

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("solve").add_argument("puzzle")
    gen = sub.add_parser("generate")
    gen.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="medium")
    gen.add_argument("--seed", type=int)
    args = ap.parse_args()
    if args.cmd == "solve":
        found = solve(list(args.puzzle.replace("0", ".")), {})
        print(show("".join(found[0])) if found else "no solution")
    else:
        puzzle, level = generate(args.difficulty, args.seed)
        print(f"{level}\n{show(puzzle)}")
