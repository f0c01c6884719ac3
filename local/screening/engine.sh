# shellcheck shell=bash
# Sourced by local/stack/stack.sh (after its settings and helpers): the
# local screening engine, two of the stack's services.
#
#   opensearch  a single-node OpenSearch 2.19.6 (jars from Maven, profile
#               opensearch of local/stack/pom.xml; OpenSearchNode.java) on
#               127.0.0.1:$OPENSEARCH_PORT, its data in <stack>/opensearch,
#               wiped on each start
#   yente       OpenSanctions' yente 5.5.0 (install.sh: a venv in
#               ~/.cache/evs) on 127.0.0.1:$YENTE_PORT, over that node,
#               indexing listed-parties.ftm.json (yente reindex, then yente
#               serve: yente.sh)
#
# yente is healthy when /readyz answers and a canary /match finds the
# dataset's fixture entity evs-co-canary: /readyz can answer before the
# index alias is switched.

SCREENING_DIR="$REPO_ROOT/local/screening"
OPENSEARCH_PORT="${OPENSEARCH_PORT:-9200}"
YENTE_PORT="${YENTE_PORT:-8765}"
OPENSEARCH_HEAP="${OPENSEARCH_HEAP:-256m}"
SCREENING_START_TIMEOUT="${SCREENING_START_TIMEOUT:-180}"
SCREENING_DATASET="$SCREENING_DIR/listed-parties.ftm.json"
OPENSEARCH_HOME="$STACK_DIR/opensearch"
YENTE_DATA="$STACK_DIR/yente"
YENTE_MANIFEST_FILE="$ETC_DIR/yente-manifest.json"
OPENSEARCH_MAIN="OpenSearchNode.java"
# The venv install.sh makes (the version is requirements.txt's yente pin).
YENTE_VENV="${YENTE_DIR:-$HOME/.cache/evs/yente-$(sed -n 's/^yente==//p' "$SCREENING_DIR/requirements.txt")}"
# The cluster name OpenSearchNode.java gives its node: an OpenSearch on the
# port that is not one of ours is not used.
OPENSEARCH_CLUSTER="evs-screening"
# Set by stack.sh's do_start when the node yente indexes into is this
# stack's own (launched or already ours): yente.sh may clear its lock.
SCREENING_OWN_NODE=0

screening_install() {
  bash "$SCREENING_DIR/install.sh" || die "installing yente failed (local/screening/install.sh)"
}

opensearch_healthy() {
  http_ok "\"cluster_name\":\"$OPENSEARCH_CLUSTER\"" \
    "http://127.0.0.1:$OPENSEARCH_PORT/_cluster/health?wait_for_status=yellow&timeout=1s"
}

yente_healthy() {
  local base="http://127.0.0.1:$YENTE_PORT"
  http_ok '"status":"ok"' "$base/readyz" &&
    http_ok '"id":"evs-co-canary"' -X POST -H 'Content-Type: application/json' \
      --data '{"queries":{"canary":{"schema":"Company","properties":{"name":["EVS Canary Screening Fixture Ltd"]}}}}' \
      "$base/match/default"
}

# yente's settings, all from the environment (yente/settings.py).
yente_env() {
  printf '%s\n' \
    "YENTE_INDEX_TYPE=opensearch" \
    "YENTE_INDEX_URL=http://127.0.0.1:$OPENSEARCH_PORT" \
    "YENTE_MANIFEST=$YENTE_MANIFEST_FILE" \
    "YENTE_AUTO_REINDEX=false" \
    "YENTE_HOST=127.0.0.1" \
    "YENTE_PORT=$YENTE_PORT" \
    "YENTE_DATA_PATH=$YENTE_DATA" \
    "YENTE_LOG_JSON=true" \
    "OTEL_SDK_DISABLED=true" \
    "EVS_YENTE_INDEX_WAIT=$SCREENING_START_TIMEOUT" \
    "EVS_YENTE_CLEAR_LOCK=$SCREENING_OWN_NODE"
}

# screening_cmd sets CMD, as stack.sh's server_cmd does, for opensearch or
# yente.
# shellcheck disable=SC2034 # CMD is stack.sh's
screening_cmd() { # service
  case "$1" in
    opensearch)
      CMD=("$(java_bin)" "-Devs.stack=opensearch" "-Devs.stack.dir=$STACK_DIR"
        "-Xms$OPENSEARCH_HEAP" "-Xmx$OPENSEARCH_HEAP" -XX:+UseSerialGC
        -Dlog4j2.disable.jmx=true -Dlog4j.shutdownHookEnabled=false
        -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0
        "-Djava.io.tmpdir=$OPENSEARCH_HOME/tmp"
        -cp "$LIB_DIR/opensearch/*" "$SCREENING_DIR/$OPENSEARCH_MAIN"
        --port "$OPENSEARCH_PORT" --home "$OPENSEARCH_HOME")
      ;;
    yente)
      local -a envs
      mapfile -t envs < <(yente_env)
      CMD=(env "${envs[@]}" bash "$SCREENING_DIR/yente.sh" "$YENTE_VENV/bin/yente")
      ;;
  esac
}

# screening_prepare runs before a launch: a fresh start begins from nothing
# (no index left by an earlier run, and so no stale index lock), and yente's
# manifest names the dataset by its absolute path.
screening_prepare() { # service
  case "$1" in
    opensearch)
      rm -rf "${OPENSEARCH_HOME:?}"
      mkdir -p "$OPENSEARCH_HOME/tmp"
      ;;
    yente)
      rm -rf "${YENTE_DATA:?}"
      mkdir -p "$YENTE_DATA" "$ETC_DIR"
      "$YENTE_VENV/bin/python" "$SCREENING_DIR/manifest.py" "$SCREENING_DATASET" "$YENTE_MANIFEST_FILE" ||
        die "yente: cannot write its manifest from $SCREENING_DATASET"
      ;;
  esac
}

# Whether the command line is that of the stack's yente: the wrapper
# (bash yente.sh <venv>/bin/yente) or, once it exec'd, yente serve.
yente_cmdline() { # cmdline
  [[ "$1" == *"$YENTE_VENV/bin/yente"* && ("$1" == *"$SCREENING_DIR/yente.sh"* || "$1" == *" serve"*) ]]
}

# The port the running server listens on, as it was started: the node's
# --port argument, yente's YENTE_PORT (its environment); empty if unknown.
screening_port_of() { # service pid
  local cmd
  case "$1" in
    opensearch)
      cmd="$(cmdline_of "$2")"
      [[ "$cmd" == *" --port "* ]] || return 0
      cmd="${cmd#* --port }"
      echo "${cmd%% *}"
      ;;
    yente)
      tr '\0' '\n' <"/proc/$2/environ" 2>/dev/null | sed -n 's/^YENTE_PORT=//p' | head -n 1 || true
      ;;
  esac
}

screening_data() { # service
  case "$1" in
    opensearch) echo "$OPENSEARCH_HOME (wiped on each start)" ;;
    yente) echo "an index of $SCREENING_DATASET" ;;
  esac
}
