# Shared by the libFuzzer build scripts (Fuzz/build-api.sh,
# Fuzz/build-http.sh): the sanitizer flags, the C shims' module maps and
# objects, and `swift_module`, which compiles one of the package's modules
# with swiftc into $mods. The caller sets `out` (its output directory);
# this sets `here` (Fuzz/), `root` (the repository), `mods` ($out/modules)
# and `opt` ($FUZZ_OPT, default -O).
#
# FUZZ_ASAN=0: without AddressSanitizer.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
opt=${FUZZ_OPT:--O}
mkdir -p "$out/modules"
out=$(cd "$out" && pwd)
mods="$out/modules"
# The calling build script, by absolute path: its change rebuilds every module.
caller=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# Coverage for libFuzzer in every module: edges with inline counters and the
# PC table, as -sanitize=fuzzer gives. Its comparison tracing (trace-cmp,
# which feeds libFuzzer's table of compared values) only where the compared
# values can be the input's own bytes: the JSON reader and the API's decoders
# (raw bodies), and the harness. Elsewhere (HitRouting, HitRender, ...) the
# operands are derived numbers no mutation can insert, and tracing them cost
# about a fifth of an execution.
san=(-sanitize=fuzzer,address)
san_nocmp=(-sanitize=address -sanitize-coverage=edge,indirect-calls,pc-table,inline-8bit-counters)
check=(-sanitize=address)
c_san=(-fsanitize=address)
if [[ ${FUZZ_ASAN:-1} == 0 ]]; then
    san=(-sanitize=fuzzer)
    san_nocmp=(-sanitize=fuzzer -sanitize-coverage=edge,indirect-calls,pc-table,inline-8bit-counters)
    check=(none)
    c_san=()
fi

# The C shims: module maps of our own (SwiftPM synthesises them for the package).
shims=(CEpoll CPrefetch CCounters)
for c in "${shims[@]}"; do
    mkdir -p "$mods/$c"
    cat >"$mods/$c/module.modulemap" <<MAP
module $c {
    header "$root/Sources/$c/include/$c.h"
    export *
}
MAP
done
for c in CEpoll CCounters; do
    if [[ ! -f "$mods/$c.o" ]] || [[ -n $(find "$root/Sources/$c" -newer "$mods/$c.o" | head -1) ]]; then
        clang -c -O1 -g "${c_san[@]}" -I "$root/Sources/$c/include" \
            "$root/Sources/$c/$c.c" -o "$mods/$c.o"
    fi
done
maps=()
for c in "${shims[@]}"; do maps+=(-Xcc -fmodule-map-file="$mods/$c/module.modulemap"); done

swift_module() { # name "dependency modules" sources... (skipped when its object is newer than all of them
    # and was built with the same flags: $mods/<name>.flags)
    # $SANITIZE: the flags (default: coverage without comparison tracing; `none`: no sanitizer).
    local name=$1 deps=$2 dep flags=("${san_nocmp[@]}")
    if [[ ${SANITIZE:-} == none ]]; then flags=(); elif [[ -n ${SANITIZE:-} ]]; then read -r -a flags <<<"$SANITIZE"; fi
    shift 2
    local stamp="${flags[*]:-} $opt"
    if [[ -f "$mods/$name.o" ]] && [[ "$(cat "$mods/$name.flags" 2>/dev/null)" == "$stamp" ]] &&
        [[ -z $(find "$@" "$here/modules.sh" "$caller" -newer "$mods/$name.o" | head -1) ]]; then
        local stale=""
        for dep in $deps; do [[ "$mods/$dep.o" -nt "$mods/$name.o" ]] && stale=1; done
        [[ -z "$stale" ]] && return 0
    fi
    swiftc "${flags[@]}" -package-name hitroute -parse-as-library "$opt" -g -wmo -num-threads 0 \
        -module-name "$name" -emit-module -emit-module-path "$mods/$name.swiftmodule" \
        -I "$mods" "${maps[@]}" -c "$@" -o "$mods/$name.o"
    printf '%s' "$stamp" >"$mods/$name.flags"
}
sources() { find "$root/Sources/$1" -name '*.swift' | sort; }
