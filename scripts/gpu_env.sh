# Source on the lent GPU machine: installs the carried wheels (.whl/) into /tmp/site and sets paths.
# Usage (device tool, carry .whl):  source scripts/gpu_env.sh
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/tmp/pip.log 2>&1 \
  || { tail -5 /tmp/pip.log; echo "wheel install failed"; }
export PYTHONPATH=/tmp/site:$PWD
export PYTHONUNBUFFERED=1
kernelopt() { python3 -m kernelopt.cli.main "$@"; }
