#!/usr/bin/env bash
# The HPU contract tests: our HPU code path through the real optimum-habana classes on the CPU, with the Habana
# runtime stood in for (tests/hpu/standins). They run in a virtual environment with the pinned HPU stack, created
# once per version of envs/requirements-hpu.txt (a cold install takes minutes) and reused from the cache after.
# Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."

extra=(torch==2.13.0 pytest==9.2.0) # torch comes with the Habana base image on a Gaudi; here the CPU build
key="$(sha256sum envs/requirements-hpu.txt | cut -d' ' -f1)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/snakebert/hpu-venv-$key"
mkdir -p "$(dirname "$venv")"

exec 9>"$venv.lock"
flock 9 # one creator at a time; the others wait and reuse it
if [ "$(cat "$venv/.installed" 2>/dev/null)" != "${extra[*]}" ] || ! "$venv/bin/python" -c "" 2>/dev/null; then
  echo "== create the HPU test environment: $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install "${extra[@]}" -r envs/requirements-hpu.txt
  echo "${extra[*]}" >"$venv/.installed"
fi
flock -u 9

if ! command -v mpirun >/dev/null; then # gaudi_spawn's mpirun, which the Habana base image has: Open MPI 4.1
  [ "$(id -u)" -eq 0 ] || { echo "the HPU tests need Open MPI's mpirun: install openmpi-bin" >&2 && exit 1; }
  echo "== install Open MPI (apt-get install openmpi-bin)"
  export DEBIAN_FRONTEND=noninteractive
  apt=(apt-get -o DPkg::Lock::Timeout=600) # the SLURM cluster's set-up may be installing beside it
  "${apt[@]}" install -y -qq --no-install-recommends openmpi-bin >/dev/null ||
    { "${apt[@]}" update -qq && "${apt[@]}" install -y -qq --no-install-recommends openmpi-bin >/dev/null; }
fi

echo "== HPU contract tests (optimum-habana on the CPU; the Habana runtime stood in for)"
set +e
# the data half runs in the pipeline's environment, the python that runs this script: the tests cross between them
SNAKEBERT_PIPELINE_PYTHON="$(command -v python3)" PATH="$venv/bin:$PATH" PYTHONPATH="$PWD/tests/hpu/standins:$PWD" \
  "$venv/bin/python" -m pytest -o addopts="-ra --strict-markers" tests/hpu "$@" # no xdist in this environment
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
