#!/bin/sh
# Installs the build into a temporary prefix, then uses it as a user would: each
# installed header compiled alone, a program built with pkg-config against the
# shared library, and a CMake project using find_package(steer) built against both.
# usage: test_install.sh BUILD_DIR SOURCE_DIR LIBDIR VERSION CC [EXTRA_CFLAGS]
set -eu
build=$1 src=$2 libdir=$3 version=$4 cc=$5 extra=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/steer-server bin/steerctl bin/steer-tui share/man/man1/steer-server.1 \
         share/man/man1/steerctl.1 share/man/man1/steer-tui.1 "$libdir/libsteer.a" \
         "$libdir/libsteer.so"; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done
"$prefix/bin/steer-server" --version | grep -q "$version" || fail "steer-server --version"

# Every public header stands alone.
n=0
for h in "$prefix"/include/steer/*.h; do
	printf '#include <steer/%s>\n' "${h##*/}" >"$tmp/one.c"
	# shellcheck disable=SC2086
	$cc -std=c11 -Wall -Wextra -Werror $extra -I"$prefix/include" -c "$tmp/one.c" \
		-o "$tmp/one.o" || fail "header ${h##*/} does not compile alone"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n public headers installed"

# Every symbol the library exports has the project's prefix: a user's program may
# define any other name. (A sanitizer build adds its own markers, __odr_asan.* and
# the like, which are the sanitizer's names, not the library's.)
for lib in "$prefix/$libdir/libsteer.a" "$prefix/$libdir/libsteer.so"; do
	case $lib in *.so) dyn=-D ;; *) dyn= ;; esac
	syms=$(nm -g --defined-only $dyn "$lib") || fail "nm ${lib##*/}"
	bad=$(printf '%s\n' "$syms" | awk 'NF == 3 && $3 !~ /^steer_/ && $3 !~ /^__(odr_asan|asan|ubsan|sancov)/ { print $3 }' | sort -u)
	[ -z "$bad" ] || fail "${lib##*/} exports names without steer_: $bad"
done

# The shared library exports what the installed headers declare and nothing else:
# every exported name appears in one of them (a function the headers do not declare
# is the project's own business, hidden by -fvisibility=hidden and STEER_API).
exported=$(nm -D --defined-only "$prefix/$libdir/libsteer.so" |
	awk 'NF == 3 && $2 ~ /[TDRBV]/ && $3 !~ /^__(odr_asan|asan|ubsan|sancov)/ { print $3 }' | sort -u)
[ -n "$exported" ] || fail "libsteer.so exports nothing"
cat "$prefix"/include/steer/*.h | tr -c 'A-Za-z0-9_' '\n' | sort -u >"$tmp/declared"
undeclared=$(printf '%s\n' "$exported" | comm -23 - "$tmp/declared")
[ -z "$undeclared" ] || fail "libsteer.so exports names no public header declares: $undeclared"
echo "ok: libsteer.so exports $(printf '%s\n' "$exported" | wc -l) names, each declared"

expect="vehicle 1 at 10.500 20.000
hello consumer"
check_run() { # program, how it was built
	out=$("$1") || fail "$2: the program failed"
	[ "$out" = "$expect" ] || fail "$2: printed '$out'"
	echo "ok: $2"
}

# pkg-config, shared.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs steer) || fail "pkg-config does not find steer"
# shellcheck disable=SC2086
$cc -std=c11 $extra "$src/tests/install/consumer/main.c" -o "$tmp/pc_shared" $flags \
	|| fail "pkg-config build"
readelf -d "$tmp/pc_shared" | grep -q 'NEEDED.*libsteer\.so' || fail "pc_shared: not linked to libsteer.so"
LD_LIBRARY_PATH="$prefix/$libdir" check_run "$tmp/pc_shared" "pkg-config, shared"

# C++, pkg-config, shared: the headers' C linkage.
# shellcheck disable=SC2086
c++ -std=c++11 -Wall -Werror $extra "$src/tests/install/consumer/cxx.cpp" -o "$tmp/pc_cxx" $flags \
	|| fail "C++ build against the installed headers"
out=$(LD_LIBRARY_PATH="$prefix/$libdir" "$tmp/pc_cxx") || fail "C++ program failed"
[ "$out" = "vehicle 1 at 10.500 20.000" ] || fail "C++ program printed '$out'"
echo "ok: C++, pkg-config, shared"

# find_package, static and shared.
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DSTEER_VERSION="$version" \
	>"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "find_package(steer)"; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "find_package build"; }
if readelf -d "$tmp/consumer/consumer_static" | grep -q 'NEEDED.*libsteer'; then
	fail "consumer_static: linked to libsteer.so"
fi
check_run "$tmp/consumer/consumer_static" "find_package, static"
LD_LIBRARY_PATH="$prefix/$libdir" check_run "$tmp/consumer/consumer_shared" "find_package, shared"
