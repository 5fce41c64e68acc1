#!/usr/bin/env bash
# A minimal build image made from this machine's own files, for tests of the podman runner
# on machines that cannot pull from a registry (docs/builds.md, "Runners"): this machine's
# `node` binary and npm, /bin/sh and /usr/bin/env, the libraries `ldd` lists, and an
# /etc/passwd with the non-root user `node` (1000:1000). Named after a hash of its inputs,
# so a rebuild happens only when node, npm or this script change; prints the image name.
#
#   scripts/build-image/build-test-image.sh [podman|docker]
set -euo pipefail
engine=${1:-podman}
command -v "$engine" >/dev/null || { echo "$engine is not installed" >&2; exit 1; }

node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
sh_bin=$(readlink -f /bin/sh)
env_bin=$(readlink -f /usr/bin/env)
self=$(readlink -f "$0")

hash=$( { sha256sum "$node_bin" "$sh_bin" "$env_bin" "$self" "$npm_dir/package.json"; } | sha256sum | cut -c1-12)
image="localhost/statichost-build-test:$hash"
if "$engine" image inspect "$image" >/dev/null 2>&1; then
  echo "$image"
  exit 0
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/statichost-build-image.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,usr/bin,usr/lib/node_modules,etc,tmp,workspace,cache,home/node}
chmod 1777 "$root/tmp"

copy_with_libs() {
  local bin=$1 dest=$2
  cp "$bin" "$root$dest"
  # Lines like "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)".
  ldd "$bin" | grep -o '/[^ ]*' | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}
copy_with_libs "$node_bin" /usr/bin/node
copy_with_libs "$sh_bin" /bin/sh
copy_with_libs "$env_bin" /usr/bin/env
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"

cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
node:x:1000:1000:node:/home/node:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
node:x:1000:
nogroup:x:65534:
GROUP
chown 1000:1000 "$root/home/node"

tar -C "$root" -c . | "$engine" import \
  --change 'USER=node' --change 'WORKDIR=/workspace' --change 'CMD=["/bin/sh"]' \
  --change 'ENV=PATH=/usr/local/bin:/usr/bin:/bin' \
  - "$image" >/dev/null
echo "$image"
