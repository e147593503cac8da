#!/usr/bin/env bash
# A team MLflow tracking server: a throwaway PostgreSQL cluster as the backend store and a proxied artifact
# root (clients upload through the server, so they need no shared file system).
#
#   scripts/mlflow_server.sh start STATE_DIR   # prints the tracking URI (http://HOST:PORT)
#   scripts/mlflow_server.sh stop  STATE_DIR   # stops mlflow, then PostgreSQL; removes the cluster
#
# Then: kernelopt optimize tracking=server tracking.uri=<printed URI>   (several campaigns may write at once)
#
# Environment: MLFLOW_HOST (default 127.0.0.1: this machine only; 0.0.0.0 listens on every interface so that
# campaigns on other machines can write to it, and the printed URI then names this host by `hostname -f`),
# MLFLOW_PORT (5000), PG_PORT (5433), MLFLOW_WORKERS (2), ARTIFACTS (STATE_DIR/artifacts), PYTHON (the repo's
# .venv python, else python3), PG_BIN (folder of initdb/pg_ctl; found on PATH or under /usr/lib/postgresql).
# PostgreSQL always listens on 127.0.0.1 only: just the mlflow server talks to it. MLflow answers only the
# Host names it allows: off loopback the script allows this host's names and IPv4 addresses (plus localhost);
# set MLFLOW_SERVER_ALLOWED_HOSTS (MLflow's own variable, comma-separated, `*` patterns) to choose others.
# Needs PostgreSQL (Debian: apt-get install postgresql) and psycopg2 (pip install 'kernelopt[scale]').
# PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user (else `nobody`) in a
# private folder under ${TMPDIR:-/tmp}. Authentication is `trust` on 127.0.0.1 only: this is a small-team/dev
# setup; a shared deployment points --backend-store-uri at a managed PostgreSQL with a password instead.
#
# `start` refuses (exit 6, one line, nothing started) when STATE_DIR already holds a running server, or when
# MLFLOW_PORT or PG_PORT is taken; if the server does not come up it stops whatever it had begun (exit 4/5).
set -euo pipefail

usage() {  # the comment above, as the usage text
  { echo "usage: $0 start|stop STATE_DIR"; sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"; } >&2; exit 2
}
cmd=${1:-}; state=${2:-}
[[ -n "$cmd" && -n "$state" ]] || usage
repo=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-$([ -x "$repo/.venv/bin/python" ] && echo "$repo/.venv/bin/python" || echo python3)}
PG_PORT=${PG_PORT:-5433}
MLFLOW_PORT=${MLFLOW_PORT:-5000}
MLFLOW_HOST=${MLFLOW_HOST:-127.0.0.1}
MLFLOW_WORKERS=${MLFLOW_WORKERS:-2}

find_pg_bin() {
  if [[ -n "${PG_BIN:-}" ]]; then echo "$PG_BIN"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return; fi
  local best; best=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -n "$best" ]] || { echo "mlflow_server.sh: PostgreSQL not found (apt-get install postgresql)" >&2; exit 3; }
  echo "$best"
}

as_pg() {  # run a command as the PostgreSQL owner (root is refused by postgres)
  if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u "$pg_user" -- "$@"); else "$@"; fi
}

port_free() {  # port_free HOST PORT NAME: exit 6 with one line when HOST:PORT cannot be bound right now
  local why
  why=$("$PYTHON" - "$1" "$2" <<'PY' 2>&1
import errno, socket, sys
host, port = sys.argv[1], int(sys.argv[2])
with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do: TIME_WAIT is no conflict
    try:
        s.bind((host, port))
    except OSError as exc:
        print("in use" if exc.errno == errno.EADDRINUSE else exc, end="")
        sys.exit(1)
PY
) && return 0
  if [[ "$why" == "in use" ]]; then
    echo "mlflow_server.sh: $3=$2 is already in use on $1 (another server?); pick a free $3" >&2
  else
    echo "mlflow_server.sh: cannot listen on $1:$2 ($3): $why" >&2
  fi
  exit 6
}

running_here() {  # running_here PG_BIN: does STATE_DIR hold a live server (mlflow or its PostgreSQL)?
  if [[ -f "$state/mlflow.pid" ]] && kill -0 "$(cat "$state/mlflow.pid")" 2>/dev/null; then return 0; fi
  [[ -f "$state/pgdata.path" ]] || return 1
  pg_user=$(cat "$state/pg.user" 2>/dev/null || id -un)
  as_pg "$1/pg_ctl" -D "$(cat "$state/pgdata.path")" status >/dev/null 2>&1
}

url_host() {  # url_host HOST: HOST as it goes into a URL ([...] around an IPv6 address)
  if [[ "$1" == *:* ]]; then echo "[$1]"; else echo "$1"; fi
}

allowed_hosts() {  # Host headers mlflow accepts off loopback: this host's names and IPv4 addresses, localhost
  local names=("$1" "$(hostname 2>/dev/null || true)" localhost 127.0.0.1) n out=""
  [[ "$MLFLOW_HOST" == 0.0.0.0 || "$MLFLOW_HOST" == :: ]] || names+=("$(url_host "$MLFLOW_HOST")")
  for n in $(hostname -I 2>/dev/null || true); do [[ "$n" == *:* ]] || names+=("$n"); done
  for n in "${names[@]}"; do [[ -n "$n" ]] && out+="$n,$n:*,"; done
  echo "${out}192.168.*,10.*,$(printf '172.%s.*,' {16..31})fd00:*"  # and MLflow's default private ranges
}

new_data=""  # the data folder this start made, until pgdata.path names it (then `stop` owns it)
start_failed() {  # EXIT trap of start: stop whatever this start began
  local rc=$?
  [[ $rc -eq 0 ]] && return 0
  stop
  if [[ -n "$new_data" ]]; then
    as_pg "$(find_pg_bin)/pg_ctl" -D "$new_data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$new_data"
  fi
  exit "$rc"
}

start() {
  mkdir -p "$state"; state=$(cd "$state" && pwd)
  local bin; bin=$(find_pg_bin)
  if running_here "$bin"; then
    echo "mlflow_server.sh: $state is already running at $(cat "$state/uri" 2>/dev/null || echo '(unknown URI)');" \
      "stop it first: $0 stop $state" >&2
    exit 6
  fi
  stop  # what a server that died without `stop` left: a stale pid file, its stopped cluster's data folder
  port_free "$MLFLOW_HOST" "$MLFLOW_PORT" MLFLOW_PORT
  port_free 127.0.0.1 "$PG_PORT" PG_PORT
  trap start_failed EXIT
  pg_user=$(id -un)
  local data="$state/pgdata"
  if [[ $(id -u) -eq 0 ]]; then
    pg_user=$(id -u postgres >/dev/null 2>&1 && echo postgres || echo nobody)
    data=$(mktemp -d "${TMPDIR:-/tmp}/kernelopt-pg.XXXXXX"); new_data=$data
    chown "$pg_user" "$data"; chmod 700 "$data"
  else
    mkdir -m 700 "$data" || { echo "mlflow_server.sh: $data exists (left by an earlier start?); remove it" >&2; exit 4; }
    new_data=$data
  fi
  as_pg "$bin/initdb" -D "$data" -U kernelopt --auth=trust -E UTF8 --no-sync >"$state/initdb.log" 2>&1 \
    || { cat "$state/initdb.log" >&2; exit 4; }
  as_pg "$bin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $data -c fsync=off" start >"$state/pg_ctl.log" 2>&1 \
    || { cat "$state/pg_ctl.log" "$data/postgres.log" >&2 2>/dev/null; exit 4; }
  echo "$data" >"$state/pgdata.path"; echo "$pg_user" >"$state/pg.user"; new_data=""  # only a running cluster
  "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U kernelopt mlflow || exit 4
  local artifacts=${ARTIFACTS:-$state/artifacts}
  mkdir -p "$artifacts"
  local name poll  # the URI's host name; where this script polls /health
  case "$MLFLOW_HOST" in
    0.0.0.0) name=$(hostname -f 2>/dev/null || hostname); poll=127.0.0.1 ;;
    ::) name=$(hostname -f 2>/dev/null || hostname); poll="[::1]" ;;
    *) name=$(url_host "$MLFLOW_HOST"); poll=$name ;;
  esac
  local url="http://$name:$MLFLOW_PORT"
  case "$MLFLOW_HOST" in
    127.*|localhost|::1) ;;
    *) export MLFLOW_SERVER_ALLOWED_HOSTS=${MLFLOW_SERVER_ALLOWED_HOSTS:-$(allowed_hosts "$name")} ;;
  esac
  MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false setsid "$PYTHON" -m mlflow server \
    --backend-store-uri "postgresql+psycopg2://kernelopt@127.0.0.1:$PG_PORT/mlflow" \
    --artifacts-destination "$artifacts" --host "$MLFLOW_HOST" --port "$MLFLOW_PORT" --workers "$MLFLOW_WORKERS" \
    >"$state/mlflow.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$state/mlflow.pid"
  for _ in $(seq 1 480); do
    kill -0 "$pid" 2>/dev/null || break  # ours died (a /health answer would then be someone else's)
    if "$PYTHON" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1]+'/health', timeout=2)" \
        "http://$poll:$MLFLOW_PORT" \
        2>/dev/null && kill -0 "$pid" 2>/dev/null; then
      trap - EXIT
      echo "$url" >"$state/uri"; echo "$url"; return 0
    fi
    sleep 0.5
  done
  echo "mlflow_server.sh: mlflow server did not come up; log tail:" >&2; tail -40 "$state/mlflow.log" >&2
  exit 5
}

stop() {
  if [[ -f "$state/mlflow.pid" ]]; then
    local pid; pid=$(cat "$state/mlflow.pid")
    kill -TERM -- "-$pid" 2>/dev/null || true  # setsid: the server's whole process group
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$state/mlflow.pid"
  fi
  if [[ -f "$state/pgdata.path" ]]; then
    local data bin; data=$(cat "$state/pgdata.path"); bin=$(find_pg_bin)
    pg_user=$(cat "$state/pg.user" 2>/dev/null || id -un)
    as_pg "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$data"; rm -f "$state/pgdata.path" "$state/pg.user"
  fi
  rm -f "$state/uri"
}

case "$cmd" in
  start) start ;;
  stop) state=$(cd "$state" 2>/dev/null && pwd || echo "$state"); stop ;;
  *) usage ;;
esac
