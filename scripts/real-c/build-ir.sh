#!/usr/bin/env bash
# Build whole-program LLVM IR for seven real C code bases (Lua 5.4, bzip2, zlib,
# Brotli, Zstandard, Duktape, SQLite) from Debian source packages, for
# gpumorph's LLVM front end.
#
# Usage: scripts/real-c/build-ir.sh [cache-dir]
#   cache-dir defaults to ${GPUMORPH_CACHE:-$HOME/.cache/gpumorph}/real-c
#
# Output: <cache>/ir/<name>.ll for each name of CODE_BASES below.
# Third-party sources and the IR built from them stay in the cache folder:
# never commit them.
#
# Idempotent: every step is skipped when its result exists. Delete a file
# under <cache>/ir (or a folder under <cache>/src) to redo that step.
set -euo pipefail

CACHE="${1:-${GPUMORPH_CACHE:-$HOME/.cache/gpumorph}/real-c}"
CLANG="${CLANG:-clang-16}"
OPT="${OPT:-opt-16}"
LINK="${LLVM_LINK:-llvm-link-16}"
# Keep CPU use light on shared machines: one compiler at a time, niced.
NICE="nice -n 10"

say() { printf '[build-ir] %s\n' "$*"; }
die() { printf '[build-ir] error: %s\n' "$*" >&2; exit 1; }

CODE_BASES=(lua bzip2 zlib brotli zstd duktape sqlite)

for tool in "$CLANG" "$OPT" "$LINK" apt-get dpkg-source; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found on PATH (Debian: apt-get install clang-16 llvm-16 dpkg-dev)"
done

mkdir -p "$CACHE/src" "$CACHE/ir" "$CACHE/obj" || die "cannot create $CACHE"
CACHE="$(cd "$CACHE" && pwd)"
say "cache folder: $CACHE"
say "compiler: $("$CLANG" --version | head -n1)"

# --- 1. deb-src stanza -------------------------------------------------------
have_deb_src() {
  grep -Eqs '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources \
    || grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}

if have_deb_src; then
  say "deb-src already configured"
else
  [ "$(id -u)" = 0 ] || die "no deb-src entry in APT sources and not root: run as root once, or add a deb-src stanza by hand"
  first=/etc/apt/sources.list.d/debian.sources
  [ -r "$first" ] || die "$first not found: cannot derive a deb-src stanza"
  say "adding /etc/apt/sources.list.d/debian-src.sources (first stanza of $first with Types: deb-src)"
  awk 'BEGIN{RS="";ORS="\n\n"} NR==1' "$first" \
    | sed -e 's/^Types:.*/Types: deb-src/' > /etc/apt/sources.list.d/debian-src.sources
  say "apt-get update"
  apt-get update -q || die "apt-get update failed"
fi

# --- 2. sources ---------------------------------------------------------------
# fetch <package>: download the source package and unpack it into
# $CACHE/src/<package>-<version>; prints the unpacked folder.
fetch() {
  local pkg="$1" dl="$CACHE/src/.dl-$1" dsc dir
  mkdir -p "$dl"
  dsc="$(ls "$dl"/*.dsc 2>/dev/null | head -n1 || true)"
  if [ -z "$dsc" ]; then
    say "apt-get source --download-only $pkg" >&2
    (cd "$dl" && apt-get source -q --download-only "$pkg" >&2) || die "apt-get source $pkg failed (is the deb-src index current? try: apt-get update)"
    dsc="$(ls "$dl"/*.dsc 2>/dev/null | head -n1 || true)"
    [ -n "$dsc" ] || die "no .dsc downloaded for $pkg"
  fi
  # <name>_<version>.dsc -> <name>-<upstream version>
  local base ver
  base="$(basename "$dsc" .dsc)"
  ver="${base#*_}"; ver="${ver#*:}"; ver="${ver%-*}"
  dir="$CACHE/src/${base%%_*}-$ver"
  if [ ! -d "$dir" ]; then
    say "dpkg-source -x $(basename "$dsc")" >&2
    dpkg-source -q -x "$dsc" "$dir" >&2 || die "dpkg-source -x $dsc failed"
  fi
  printf '%s\n' "$dir"
}

# --- 3. compile ---------------------------------------------------------------
CFLAGS_IR=(-S -emit-llvm -O0 -Xclang -disable-O0-optnone -fno-discard-value-names -w)

# build_ir <name> <srcdir> <extra-flags-string> <file>...: compile each file to
# mem2reg'd IR under $CACHE/obj/<name>/, link into $CACHE/ir/<name>.ll
build_ir() {
  local name="$1" srcdir="$2" flags="$3"; shift 3
  local out="$CACHE/ir/$name.ll" objdir="$CACHE/obj/$name" f o lls=()
  if [ -s "$out" ]; then say "$out exists, skipping"; return 0; fi
  mkdir -p "$objdir"
  for f in "$@"; do
    [ -f "$srcdir/$f" ] || die "$name: source file $srcdir/$f not found"
    o="$objdir/$(echo "$f" | tr '/' '_')"; o="${o%.c}"
    if [ ! -s "$o.ll" ]; then
      say "$name: clang $f"
      # shellcheck disable=SC2086
      (cd "$srcdir" && $NICE "$CLANG" "${CFLAGS_IR[@]}" $flags "$f" -o "$o.0.ll") \
        || die "$name: clang failed on $srcdir/$f"
      $NICE "$OPT" -S -passes=mem2reg "$o.0.ll" -o "$o.ll.tmp" || die "$name: opt failed on $o.0.ll"
      mv "$o.ll.tmp" "$o.ll"; rm -f "$o.0.ll"
    fi
    lls+=("$o.ll")
  done
  say "$name: llvm-link ${#lls[@]} files -> $out"
  $NICE "$LINK" -S "${lls[@]}" -o "$out.tmp" || die "$name: llvm-link failed"
  mv "$out.tmp" "$out"
  say "$name: $(wc -l < "$out") lines, $(wc -c < "$out") bytes"
}

# Lua 5.4: onelua.c when the release has it, else the interpreter (lua.c) with
# the core and the standard libraries (every src/*.c except luac.c).
LUA="$(fetch lua5.4)"
# Debian's luaconf.h includes a header that debian/rules generates at build time.
LUAINC="$CACHE/obj/lua-include"
mkdir -p "$LUAINC"
if grep -qs 'lua5.4-deb-multiarch.h' "$LUA/src/luaconf.h" && [ ! -f "$LUAINC/lua5.4-deb-multiarch.h" ]; then
  arch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo "$(uname -m)-linux-gnu")"
  say "lua: generating lua5.4-deb-multiarch.h ($arch)"
  printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' "$arch" \
    > "$LUAINC/lua5.4-deb-multiarch.h"
fi
if [ -f "$LUA/onelua.c" ] || [ -f "$LUA/src/onelua.c" ]; then
  luasrc="$LUA"; [ -f "$LUA/src/onelua.c" ] && luasrc="$LUA/src"
  build_ir lua "$luasrc" "-DLUA_USE_LINUX -I$LUA/src -I$LUAINC" onelua.c
else
  mapfile -t luafiles < <(cd "$LUA/src" && ls *.c | grep -vx 'luac.c' | sort)
  build_ir lua "$LUA/src" "-DLUA_USE_LINUX -DLUA_COMPAT_5_3 -I$LUAINC" "${luafiles[@]}"
fi

# bzip2: the bzip2 program and the libbz2 sources.
BZ="$(fetch bzip2)"
build_ir bzip2 "$BZ" "-D_FILE_OFFSET_BITS=64" \
  blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c

# zlib: the library and minigzip.
ZL="$(fetch zlib)"
mg=test/minigzip.c; [ -f "$ZL/$mg" ] || mg=minigzip.c
build_ir zlib "$ZL" "-I. -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN" \
  adler32.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c zutil.c \
  compress.c uncompr.c gzclose.c gzlib.c gzread.c gzwrite.c "$mg"

# Brotli: the libraries (common, decoder, encoder) and the brotli tool.
BR="$(fetch brotli)"
mapfile -t brfiles < <(cd "$BR" && ls c/common/*.c c/dec/*.c c/enc/*.c | sort)
build_ir brotli "$BR" "-Ic/include" "${brfiles[@]}" c/tools/brotli.c

# Zstandard: the library (without the legacy formats and the x86-64 assembly
# decoder loop) and the zstd program.
ZS="$(fetch libzstd)"
mapfile -t zsfiles < <(cd "$ZS" && ls lib/common/*.c lib/compress/*.c lib/decompress/*.c lib/dictBuilder/*.c programs/*.c | sort)
build_ir zstd "$ZS" "-Ilib -Ilib/common -DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0" "${zsfiles[@]}"

# Duktape (a JavaScript interpreter): the one-file distribution and its command
# line tool.
DK="$(fetch duktape)"
build_ir duktape "$DK" "-Isrc" src/duktape.c examples/cmdline/duk_cmdline.c

# SQLite: the amalgamation (sqlite3.c) and the shell, generated by the source
# tree's own make targets (they need cc and tclsh, not the build dependencies).
SQ="$(fetch sqlite3)"
if [ ! -s "$SQ/sqlite3.c" ] || [ ! -s "$SQ/shell.c" ]; then
  command -v tclsh >/dev/null 2>&1 || die "sqlite: tclsh not found (apt-get install tcl)"
  say "sqlite: configure and make sqlite3.c shell.c"
  (cd "$SQ" && $NICE ./configure --disable-tcl >/dev/null && $NICE make sqlite3.c shell.c >/dev/null) \
    || die "sqlite: generating sqlite3.c failed"
fi
build_ir sqlite "$SQ" "-I. -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION" sqlite3.c shell.c

say "done:"
for n in "${CODE_BASES[@]}"; do
  printf '  %-40s %9s lines %11s bytes\n' "$CACHE/ir/$n.ll" "$(wc -l < "$CACHE/ir/$n.ll")" "$(wc -c < "$CACHE/ir/$n.ll")"
done
