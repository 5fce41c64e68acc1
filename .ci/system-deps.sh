# Debian packages the tests need; sourced by .ci/run. Installs only what is missing.
need=()
command -v runuser >/dev/null || need+=(util-linux)
# The gate pages are tested in a real browser: Debian's Chromium, driven by playwright-core.
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
