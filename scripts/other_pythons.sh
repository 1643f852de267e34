#!/usr/bin/env bash
# The fast subset of the test suite on each supported Python other than python3's,
# for .ci/run (which then runs the whole suite on python3, last).
#
# chitin supports Python 3.11, 3.12 and 3.13. The whole suite takes about five minutes
# per Python on CI's two cores, so the other two run the subset below: the file format,
# the commands end to end, retrieval by text and by meaning, the public API, the JSON
# contract and the MCP server. Each Python is looked for in pyenv's versions, then as
# pythonX.Y on PATH; one that cannot be found (or cannot make a venv) is skipped with
# one line saying so. Each gets a venv of its own in a temporary folder, with chitin
# installed as a user gets it (not editable), and its test tools.
#
#   scripts/other_pythons.sh               # every supported Python but python3's
#   scripts/other_pythons.sh 3.12 3.13     # these (python3's too, if named)
#   CHITIN_CI_OTHER_PYTHONS=off scripts/other_pythons.sh   # says so, runs nothing
set -euo pipefail
cd "$(dirname "$0")/.."

SUPPORTED=(3.11 3.12 3.13)
SUBSET=(
    tests/test_markdown.py
    tests/test_fields.py
    tests/test_cli_lifecycle.py
    tests/test_cli_retrieve.py
    tests/test_retrieval.py
    tests/test_semantic.py
    tests/test_public_api.py
    tests/test_json_contract.py
    tests/test_mcp.py
)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/chitin-other-pythons-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The newest pyenv build of version $1 (3.12 → …/versions/3.12.1/bin/python3.12), else
# python$1 on PATH; nothing if neither runs.
find_python() {
    local version=$1 candidate found=""
    if command -v pyenv >/dev/null 2>&1; then
        while IFS= read -r candidate; do
            [ -x "$candidate" ] && found=$candidate
        done < <(printf '%s\n' "$(pyenv root)/versions/$version".*/bin/"python$version" | sort -V)
    fi
    if [ -z "$found" ]; then
        found=$(command -v "python$version" || true)
    fi
    # A pyenv shim is on PATH for every version pyenv knows, runnable or not: ask it.
    if [ -n "$found" ] && "$found" -c 'import sys' >/dev/null 2>&1; then
        echo "$found"
    fi
}

# The subset on the interpreter $2 (version $1), in a fresh venv.
run_subset() {
    local version=$1 python=$2 venv
    venv="$WORK/py$version"
    if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
        echo "Python $version: skipped ($python cannot make a venv)"
        return 0
    fi
    echo "Python $version ($python): installing chitin and running ${#SUBSET[@]} test files"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check '.[test]'
    # as in an activated venv: its chitin is the one on PATH
    PATH="$venv/bin:$PATH" "$venv/bin/python" -m pytest -q -p no:cacheprovider "${SUBSET[@]}"
}

main() {
    if [ "${CHITIN_CI_OTHER_PYTHONS:-on}" = off ]; then
        echo "Other Pythons: not run here (CHITIN_CI_OTHER_PYTHONS=off)"
        return 0
    fi
    local own version python versions=("$@")
    own=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    if [ ${#versions[@]} -eq 0 ]; then
        for version in "${SUPPORTED[@]}"; do
            [ "$version" = "$own" ] || versions+=("$version")
        done
    fi
    for version in "${versions[@]}"; do
        python=$(find_python "$version")
        if [ -z "$python" ]; then
            echo "Python $version: skipped (not in pyenv's versions, no python$version on PATH)"
            continue
        fi
        run_subset "$version" "$python"
    done
}

main "$@"
