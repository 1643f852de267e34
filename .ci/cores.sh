# shellcheck shell=bash  # sourced by .ci/run, never run: no shebang, but bash it is
# Core dumps of crashed test processes, for .ci/run (sourced). Nothing here may fail
# the run: without root, or where the kernel's core pattern cannot be set, the run
# goes on and says where cores go instead.

_cores_previous_pattern=""

cores_start() {
    local folder="$1"
    mkdir -p "$folder"
    ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)" 2>/dev/null || true
    local pattern_file=/proc/sys/kernel/core_pattern
    [ -r "$pattern_file" ] || { echo "ci: no $pattern_file; cores are not collected"; return 0; }
    _cores_previous_pattern="$(cat "$pattern_file")"
    local wanted="$folder/core.%e.%p"
    if { [ -w "$pattern_file" ] && echo "$wanted" >"$pattern_file"; } 2>/dev/null ||
        sudo -n sh -c "echo '$wanted' > $pattern_file" 2>/dev/null; then
        echo "ci: core dumps go to $folder (ulimit -c $(ulimit -c))"
    else
        _cores_previous_pattern=""
        echo "ci: cannot set the core pattern; cores go where it says: $(cat "$pattern_file")"
    fi
}

cores_end() {
    [ -n "$_cores_previous_pattern" ] || return 0
    local pattern_file=/proc/sys/kernel/core_pattern
    { echo "$_cores_previous_pattern" >"$pattern_file"; } 2>/dev/null ||
        sudo -n sh -c "echo '$_cores_previous_pattern' > $pattern_file" 2>/dev/null || true
}

cores_summary() {
    local folder="$1" core found=0
    for core in "$folder"/core*; do
        [ -f "$core" ] || continue
        found=1
        echo "=== crashed test process: $core"
        command -v file >/dev/null && file "$core"
        if command -v gdb >/dev/null; then
            local program
            # The crashed program, as the core names it (a venv's python, git, node).
            program="$(file "$core" 2>/dev/null | sed -n "s/.*execfn: '\([^']*\)'.*/\1/p")"
            [ -n "$program" ] && [ -x "$program" ] || program="$(command -v python3)"
            gdb -batch -nx -ex "thread apply all bt 30" "$program" "$core" 2>&1 | tail -n 200
        else
            echo "(gdb is not installed: no backtrace; the core is kept in $folder)"
        fi
    done
    [ "$found" -eq 1 ] || echo "ci: no core dumps in $folder"
}
