# Debian packages the tests need; sourced by .ci/run (idempotent, quiet when present).
need=()
command -v runuser >/dev/null || need+=(util-linux)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
