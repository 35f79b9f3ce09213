#!/usr/bin/env bash
# Prints a JSON array of the packages under packages/ that changed since BASE, plus the packages
# that depend on them (by name in their package.json), so a change to a library re-tests its users.
set -euo pipefail
base="${1:-origin/main}"
changed=$(git diff --name-only "$base"...HEAD -- packages/ | cut -d/ -f2 | sort -u)
all=$(ls packages)
result="$changed"
for pkg in $changed; do
  name=$(jq -r .name "packages/$pkg/package.json")
  for other in $all; do
    if jq -e --arg n "$name" '(.dependencies // {}) + (.devDependencies // {}) | has($n)' \
      "packages/$other/package.json" > /dev/null; then
      result=$(printf '%s\n%s' "$result" "$other")
    fi
  done
done
printf '%s\n' $result | sort -u | grep -v '^$' | jq -R . | jq -cs .
