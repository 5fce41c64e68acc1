# Debian packages CI needs beyond npm; sourced by .ci/run. Installs only what is missing.
# `npm test` itself needs none: the browser suites fall back to the Chromium inside the
# @sparticuz/chromium npm package when Debian's is absent (test/helpers/browser.ts).
need=()
# The second pass runs the stock PostgreSQL server as the `postgres` user.
command -v runuser >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
