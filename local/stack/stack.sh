#!/usr/bin/env bash
# Local stand-ins for the AWS services the KYB service uses, and the real
# screening engine it calls:
#   dynamodb   DynamoDB Local (with Streams) on 127.0.0.1:${DYNAMODB_PORT:-8000}
#   elasticmq  ElasticMQ (SQS, query and JSON protocols) on 127.0.0.1:${ELASTICMQ_PORT:-9324}
#   opensearch single-node OpenSearch 2.19.6 for yente on 127.0.0.1:${OPENSEARCH_PORT:-9200}
#   yente      OpenSanctions' yente 5.5.0 (/match, logic-v2) on 127.0.0.1:${YENTE_PORT:-8765},
#              indexing local/screening/listed-parties.ftm.json (fictional
#              listed parties); healthy once /readyz and a canary /match answer
#              (local/screening/engine.sh holds what is particular to these two)
#
# Usage: local/stack/stack.sh install|start [SERVICE...]|stop [SERVICE...]|status|data SERVICE|elasticmq-conf
#
# Jars come from Maven (local/stack/pom.xml); yente from PyPI into a venv
# outside the clone (local/screening/install.sh: ~/.cache/evs/yente-5.5.0,
# pinned by local/screening/requirements.txt). Everything generated lives in
# ${EVS_STACK_DIR:-<repo>/.local/stack} (git-ignored):
#   lib/dynamodb, lib/elasticmq, lib/opensearch  jars (one classpath per server)
#   native/                      sqlite4java native library for DynamoDB Local
#   etc/elasticmq.conf           generated ElasticMQ config
#   etc/yente-manifest.json      generated yente manifest (the dataset's absolute path)
#   opensearch/, yente/          the node's data and yente's data path, wiped
#                                whenever start launches them
#   logs/<name>.log, run/<name>.pid
#
# Servers are stopped by the pid in their pid file only, after checking the
# process's command line is the one this script launched (yente: its
# process group, which holds the reindex it may still be running).
#
# Environment:
#   EVS_STACK_DIR          state directory (default <repo>/.local/stack)
#   DYNAMODB_PORT          default 8000
#   DYNAMODB_DATA_DIR      persist tables there (-dbPath); default -inMemory
#                          (start refuses a running server of ours whose data
#                          is elsewhere; `data SERVICE` prints where it is)
#   ELASTICMQ_PORT         default 9324
#   ELASTICMQ_DATA_DIR     persist queue messages there (H2); default in memory
#   ELASTICMQ_QUEUE_PREFIX prefix of the queues declared in ElasticMQ's config
#                          (default $EVS_TABLE_PREFIX, else evs-local-)
#   ELASTICMQ_STATS_PORT   default 9325 (only used by ElasticMQ versions that
#                          have a stats/UI server; it is disabled anyway)
#   ELASTICMQ_REGION       region in queue ARNs (default us-east-1)
#   OPENSEARCH_PORT        default 9200 (HTTP; its transport takes a free port)
#   OPENSEARCH_HEAP        the node's heap, -Xms and -Xmx (default 256m)
#   YENTE_PORT             default 8765
#   YENTE_DIR              yente's venv (default ~/.cache/evs/yente-<version>)
#   STACK_START_TIMEOUT    seconds to wait for a server to answer (default 60)
#   SCREENING_START_TIMEOUT  the same for opensearch and yente (default 180:
#                          yente indexes the dataset before it serves)
#   JAVA_HOME              use $JAVA_HOME/bin/java instead of java on PATH
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/pom.xml"
STACK_DIR="${EVS_STACK_DIR:-$REPO_ROOT/.local/stack}"
LIB_DIR="$STACK_DIR/lib"
NATIVE_DIR="$STACK_DIR/native"
LOG_DIR="$STACK_DIR/logs"
RUN_DIR="$STACK_DIR/run"
ETC_DIR="$STACK_DIR/etc"
TMP_DIR="$STACK_DIR/tmp"
STAMP="$LIB_DIR/.installed"
# Bump when the layout produced by do_install changes, to force a reinstall.
LAYOUT_VERSION=1

DYNAMODB_PORT="${DYNAMODB_PORT:-8000}"
ELASTICMQ_PORT="${ELASTICMQ_PORT:-9324}"
ELASTICMQ_STATS_PORT="${ELASTICMQ_STATS_PORT:-9325}"
ELASTICMQ_REGION="${ELASTICMQ_REGION:-us-east-1}"
ELASTICMQ_QUEUE_PREFIX="${ELASTICMQ_QUEUE_PREFIX:-${EVS_TABLE_PREFIX:-evs-local-}}"
START_TIMEOUT="${STACK_START_TIMEOUT:-60}"

DYNAMODB_MAIN="software.amazon.dynamodb.services.local.main.ServerRunner"
ELASTICMQ_MAIN="org.elasticmq.server.Main"

SERVICES=(dynamodb elasticmq opensearch yente)

log() { printf '%s\n' "$*"; }
err() { printf 'stack.sh: %s\n' "$*" >&2; }
die() { err "$*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# shellcheck source-path=SCRIPTDIR source=../screening/engine.sh
. "$REPO_ROOT/local/screening/engine.sh"

java_bin() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    printf '%s\n' "$JAVA_HOME/bin/java"
  else
    printf '%s\n' java
  fi
}

# ---------------------------------------------------------------- install ---

as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif have sudo; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

apt_install() {
  have apt-get || die "apt-get not found; install $* by hand"
  log "installing $* with apt-get ..."
  if [[ -z "${_APT_UPDATED:-}" ]]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    _APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

java_major() {
  # Prints the major version of the java we will run (e.g. 17), or nothing.
  "$(java_bin)" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9.]*\).*/\1/p' |
    sed 's/^1\.//; s/\..*//' | head -n 1
}

ensure_java() {
  if ! have "$(java_bin)"; then
    apt_install openjdk-17-jre-headless || apt_install default-jre-headless
    hash -r
    have java || die "java still not found after apt-get install"
  fi
  local major
  major="$(java_major)"
  if [[ -z "$major" || "$major" -lt 17 ]]; then
    die "DynamoDB Local 3.x needs Java 17+, found '$("$(java_bin)" -version 2>&1 | head -n 1)'; set JAVA_HOME to a Java 17+ install"
  fi
}

ensure_maven() {
  if ! have mvn; then
    apt_install maven
    hash -r
    have mvn || die "mvn still not found after apt-get install"
  fi
}

sha256_of() {
  if have sha256sum; then
    sha256sum "$1" | cut -d' ' -f1
  elif have shasum; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    cksum "$1" | cut -d' ' -f1,2
  fi
}

install_key() {
  printf 'layout=%s pom=%s\n' "$LAYOUT_VERSION" "$(sha256_of "$POM")"
}

is_installed() {
  [[ -f "$STAMP" ]] && [[ "$(cat "$STAMP")" == "$(install_key)" ]]
}

# sqlite4java names its native library libsqlite4java-<os>-<arch>.so; Maven
# ships it as a dependency artifact with the version appended
# (libsqlite4java-linux-amd64-1.0.392.so). DynamoDB Local 3.x loads it through
# its own SQLiteLibraryLoader, which first tries <org.sqlite.lib.path>/
# libsqlite4java.so, then a copy bundled inside DynamoDBLocal.jar (extracted
# to org.sqlite.tmpdir), then java.library.path. Put the library in native/
# under both names so all of those (and sqlite4java's own loader, via
# sqlite4java.library.path) find it without extracting anything at startup.
native_arch() {
  case "$(uname -m)" in
    x86_64 | amd64) echo amd64 ;;
    aarch64 | arm64) echo aarch64 ;;
    i?86) echo i386 ;;
    *) uname -m ;;
  esac
}

setup_native() {
  local lib_dir="$1" native_dir="$2" arch src="" f
  arch="$(native_arch)"
  rm -rf "$native_dir"
  mkdir -p "$native_dir"
  for f in "$lib_dir"/libsqlite4java-linux-"$arch"-*.so "$lib_dir"/libsqlite4java-linux-"$arch".so; do
    if [[ -f "$f" ]]; then src="$f"; break; fi
  done
  if [[ -z "$src" ]]; then
    # No Maven artifact for this arch (the case for aarch64 with 3.1.0): take
    # the copy bundled in DynamoDBLocal.jar if a zip tool is around.
    local folder jar entry
    case "$arch" in
      amd64) folder=x86_64 ;;
      i386) folder=x86 ;;
      *) folder="$arch" ;;
    esac
    jar=""
    for f in "$lib_dir"/DynamoDBLocal-*.jar; do
      if [[ -f "$f" ]]; then jar="$f"; break; fi
    done
    entry="software/amazon/dynamodb/services/local/shared/access/sqlite/native/Linux/$folder/libsqlite4java.so"
    if [[ -n "$jar" ]]; then
      if have unzip; then
        unzip -p "$jar" "$entry" >"$native_dir/libsqlite4java.so" 2>/dev/null || true
      elif have python3; then
        python3 - "$jar" "$entry" "$native_dir/libsqlite4java.so" <<'PY' 2>/dev/null || true
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], "wb") as out:
    out.write(z.read(sys.argv[2]))
PY
      fi
    fi
    if [[ -s "$native_dir/libsqlite4java.so" ]]; then
      src="$native_dir/libsqlite4java.so"
    else
      rm -f "$native_dir/libsqlite4java.so"
      err "note: no sqlite4java native library for linux-$arch in $lib_dir; DynamoDB Local will extract its bundled copy at startup"
      return 0
    fi
  fi
  [[ "$src" == "$native_dir/libsqlite4java.so" ]] || cp "$src" "$native_dir/libsqlite4java.so"
  cp "$native_dir/libsqlite4java.so" "$native_dir/libsqlite4java-linux-$arch.so"
}

do_install() {
  install_jars
  screening_install
}

install_jars() {
  if is_installed && [[ -d "$LIB_DIR/dynamodb" && -d "$LIB_DIR/elasticmq" && -d "$LIB_DIR/opensearch" ]]; then
    # Fast path for re-runs: skip the JVM version probe if java is there.
    have "$(java_bin)" || ensure_java
    return 0
  fi
  ensure_java
  ensure_maven
  log "fetching DynamoDB Local, ElasticMQ and OpenSearch jars with Maven into $LIB_DIR ..."
  mkdir -p "$STACK_DIR"
  local new="$STACK_DIR/lib.new" old="$STACK_DIR/lib.old" profile
  rm -rf "$new" "$old"
  mkdir -p "$new"
  mkdir -p "$LOG_DIR"
  local mvn_log="$LOG_DIR/install.log"
  : >"$mvn_log"
  for profile in dynamodb elasticmq opensearch; do
    if ! mvn -q -B -Dstyle.color=never -f "$POM" -P "$profile" dependency:copy-dependencies \
      -DoutputDirectory="$new/$profile" >>"$mvn_log" 2>&1; then
      tail -n 40 "$mvn_log" >&2
      die "mvn dependency:copy-dependencies failed for profile $profile (full output: $mvn_log)"
    fi
  done
  ls "$new"/dynamodb/DynamoDBLocal-*.jar >/dev/null 2>&1 || die "DynamoDBLocal jar missing after mvn"
  ls "$new"/elasticmq/elasticmq-server_*.jar >/dev/null 2>&1 || die "elasticmq-server jar missing after mvn"
  ls "$new"/opensearch/opensearch-[0-9]*.jar >/dev/null 2>&1 || die "opensearch jar missing after mvn"
  setup_native "$new/dynamodb" "$STACK_DIR/native.new"
  # Swap in the new tree (running servers keep their open jars).
  if [[ -d "$LIB_DIR" ]]; then mv "$LIB_DIR" "$old"; fi
  mv "$new" "$LIB_DIR"
  rm -rf "$old" "$NATIVE_DIR"
  mv "$STACK_DIR/native.new" "$NATIVE_DIR"
  install_key >"$STAMP"
  log "installed into $STACK_DIR"
}

# ---------------------------------------------------------------- probing ---

port_open() { # port
  local port="$1"
  if have timeout; then
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
  fi
}

# Succeeds if the request returns HTTP 200 and the body contains <marker>,
# so that some other HTTP server on the port does not pass for ours.
http_ok() { # marker curl-args...
  local marker="$1" out
  shift
  out="$(curl -s --connect-timeout 1 --max-time 3 -w '\n%{http_code}' "$@" 2>/dev/null)" || return 1
  [[ "${out##*$'\n'}" == 200 && "$out" == *"$marker"* ]]
}

healthy() { # service
  local svc="$1" port
  port="$(svc_port "$svc")"
  if ! have curl; then
    port_open "$port"
    return
  fi
  case "$svc" in
    dynamodb)
      http_ok '"TableNames"' -X POST \
        -H 'Content-Type: application/x-amz-json-1.0' \
        -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
        -H 'Authorization: AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
        --data '{}' "http://127.0.0.1:$port/"
      ;;
    elasticmq)
      http_ok 'ListQueuesResponse' "http://127.0.0.1:$port/?Action=ListQueues"
      ;;
    opensearch) opensearch_healthy ;;
    yente) yente_healthy ;;
  esac
}

svc_port() {
  case "$1" in
    dynamodb) echo "$DYNAMODB_PORT" ;;
    elasticmq) echo "$ELASTICMQ_PORT" ;;
    opensearch) echo "$OPENSEARCH_PORT" ;;
    yente) echo "$YENTE_PORT" ;;
  esac
}

svc_main() {
  case "$1" in
    dynamodb) echo "$DYNAMODB_MAIN" ;;
    elasticmq) echo "$ELASTICMQ_MAIN" ;;
    opensearch) echo "$OPENSEARCH_MAIN" ;;
  esac
}

# svc_timeout is how long start waits for the service to answer.
svc_timeout() {
  case "$1" in
    opensearch | yente) echo "$SCREENING_START_TIMEOUT" ;;
    *) echo "$START_TIMEOUT" ;;
  esac
}

pid_file() { echo "$RUN_DIR/$1.pid"; }

cmdline_of() { # pid
  if [[ -r "/proc/$1/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true
  else
    ps -o args= -p "$1" 2>/dev/null || true
  fi
}

# Prints the pid if the pid file points at a live java process that this
# script launched for <service> (marker property + main class on its command
# line), or, for yente, at the yente this script launched (engine.sh's
# yente_cmdline); fails otherwise.
our_pid() { # service
  local svc="$1" file pid cmd
  file="$(pid_file "$svc")"
  [[ -f "$file" ]] || return 1
  pid="$(tr -dc '0-9' <"$file")"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  cmd="$(cmdline_of "$pid")"
  if [[ "$svc" == yente ]]; then
    yente_cmdline "$cmd" || return 1
  else
    [[ "$cmd" == *java* && "$cmd" == *"-Devs.stack=$svc "* && "$cmd" == *"$(svc_main "$svc")"* ]] || return 1
  fi
  echo "$pid"
}

endpoint() { echo "http://127.0.0.1:$(svc_port "$1")"; }

# ------------------------------------------------------------------ start ---

# The service's queues (shared/deploy's catalogue, named as local/pipeline's
# EnsureQueues names them: prefix + id), declared so that ElasticMQ has them
# the moment it answers, after a restart too: no poller or emitter meets a
# missing queue. The deliveries queue's visibility is six times
# webhook-delivery's 60 s timeout; its redrive policy moves a message to the
# dead-letter queue after 5 receives. Retention cannot be declared here
# (ElasticMQ 1.7 has no such key): EnsureQueues sets it.
# TestElasticMQConfigDeclaresTheCatalogueQueues holds these to the catalogue.
elasticmq_queues() {
  local p="$ELASTICMQ_QUEUE_PREFIX"
  cat <<EOF
queues {
  "${p}deliveries_dlq" {
    defaultVisibilityTimeout = 30 seconds
  }
  "${p}review_events_failures" {
    defaultVisibilityTimeout = 30 seconds
  }
  "${p}audit_export_failures" {
    defaultVisibilityTimeout = 30 seconds
  }
  "${p}deliveries" {
    defaultVisibilityTimeout = 360 seconds
    deadLettersQueue {
      name = "${p}deliveries_dlq"
      maxReceiveCount = 5
    }
  }
}
EOF
}

# With ELASTICMQ_DATA_DIR, messages are kept in an H2 database there, so a
# restarted ElasticMQ still has what it held (keys as in the reference.conf of
# elasticmq-rest-sqs 1.7.1; the H2 driver is among ElasticMQ's dependencies).
# DB_CLOSE_DELAY=-1 keeps the database open while the JVM lives, WRITE_DELAY=0
# writes each change at once, so a SIGKILL loses nothing acknowledged.
elasticmq_storage() {
  [[ -n "${ELASTICMQ_DATA_DIR:-}" ]] || return 0
  mkdir -p "$ELASTICMQ_DATA_DIR"
  local dir
  dir="$(cd "$ELASTICMQ_DATA_DIR" && pwd)"
  cat <<EOF
messages-storage {
  enabled = true
  driver-class = "org.h2.Driver"
  uri = "jdbc:h2:$dir/elasticmq;DB_CLOSE_DELAY=-1;WRITE_DELAY=0"
  username = ""
  password = ""
  prune-data-on-init = false
}
EOF
}

# elasticmq_conf prints ElasticMQ's config.
elasticmq_conf() {
  cat <<EOF
# Generated by local/stack/stack.sh; rewritten on every start.
include classpath("application.conf")

node-address {
  protocol = http
  host = "127.0.0.1"
  port = $ELASTICMQ_PORT
  context-path = ""
}

rest-sqs {
  enabled = true
  bind-port = $ELASTICMQ_PORT
  bind-hostname = "127.0.0.1"
  sqs-limits = strict
}

# Stats/UI server: absent from ElasticMQ 1.7.x; kept off for versions that have it.
rest-stats {
  enabled = false
  bind-port = $ELASTICMQ_STATS_PORT
  bind-hostname = "127.0.0.1"
}

generate-node-address = false

aws {
  region = "$ELASTICMQ_REGION"
  accountId = "000000000000"
}

EOF
  elasticmq_queues
  elasticmq_storage
}

write_elasticmq_conf() {
  mkdir -p "$ETC_DIR"
  elasticmq_conf >"$ETC_DIR/elasticmq.conf.tmp"
  mv "$ETC_DIR/elasticmq.conf.tmp" "$ETC_DIR/elasticmq.conf"
}

# data_setting is where a server started now would keep its data: a
# directory, or "memory".
data_setting() { # service
  local dir
  case "$1" in
    dynamodb) dir="${DYNAMODB_DATA_DIR:-}" ;;
    elasticmq) dir="${ELASTICMQ_DATA_DIR:-}" ;;
  esac
  if [[ -z "$dir" ]]; then
    echo memory
  else
    mkdir -p "$dir"
    (cd "$dir" && pwd)
  fi
}

# running_data is where the running server of ours keeps its data (its
# -Devs.stack.data), or nothing when none runs.
running_data() { # service
  local pid cmd
  pid="$(our_pid "$1")" || return 0
  cmd="$(cmdline_of "$pid")"
  # Servers started before the marker existed say nothing: taken as is.
  [[ "$cmd" == *"-Devs.stack.data="* ]] || return 0
  cmd="${cmd#*-Devs.stack.data=}"
  echo "${cmd%% *}"
}

server_cmd() { # service -> sets global array CMD
  local svc="$1" java
  java="$(java_bin)"
  case "$svc" in
    opensearch | yente) screening_cmd "$svc" ;;
    dynamodb)
      mkdir -p "$TMP_DIR"
      CMD=("$java" "-Devs.stack=dynamodb" "-Devs.stack.dir=$STACK_DIR" "-Devs.stack.data=$(data_setting dynamodb)"
        "-Djava.library.path=$NATIVE_DIR"
        "-Dsqlite4java.library.path=$NATIVE_DIR"
        "-Dorg.sqlite.lib.path=$NATIVE_DIR"
        "-Dorg.sqlite.tmpdir=$TMP_DIR"
        -cp "$LIB_DIR/dynamodb/*" "$DYNAMODB_MAIN"
        -port "$DYNAMODB_PORT" -sharedDb -disableTelemetry)
      if [[ -n "${DYNAMODB_DATA_DIR:-}" ]]; then
        mkdir -p "$DYNAMODB_DATA_DIR"
        CMD+=(-dbPath "$(cd "$DYNAMODB_DATA_DIR" && pwd)")
      else
        CMD+=(-inMemory)
      fi
      ;;
    elasticmq)
      write_elasticmq_conf
      CMD=("$java" "-Devs.stack=elasticmq" "-Devs.stack.dir=$STACK_DIR" "-Devs.stack.data=$(data_setting elasticmq)"
        "-Dconfig.file=$ETC_DIR/elasticmq.conf"
        -cp "$LIB_DIR/elasticmq/*" "$ELASTICMQ_MAIN")
      ;;
  esac
}

launch() { # service
  local svc="$1" file logf
  file="$(pid_file "$svc")"
  logf="$LOG_DIR/$svc.log"
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  rm -f "$file"
  case "$svc" in opensearch | yente) screening_prepare "$svc" ;; esac
  server_cmd "$svc"
  # An in-memory DynamoDB Local starts with no tables: the records and
  # evidence folders that copy them (devstack.RecordsDir, EvidenceDir)
  # start empty with it, never outliving what they copy.
  if [[ "$svc" == dynamodb && "$(data_setting dynamodb)" == memory ]]; then
    rm -rf "${STACK_DIR:?}/memory"
  fi
  {
    printf '=== %s starting %s\n' "$(date '+%Y-%m-%dT%H:%M:%S%z')" "$svc"
    printf '=== '
    printf '%q ' "${CMD[@]}"
    printf '\n'
  } >>"$logf"
  # The inner bash writes its own pid and then execs the server, so the pid
  # file holds the server's pid even if setsid has to fork. New session + nohup: the
  # server outlives this shell and its terminal.
  local -a detach=(nohup)
  if have setsid; then detach=(setsid nohup); fi
  (
    cd "$STACK_DIR"
    # shellcheck disable=SC2016 # $$ and $@ are for the inner bash
    "${detach[@]}" bash -c 'echo $$ >"$0"; exec "$@"' "$file" "${CMD[@]}" \
      </dev/null >>"$logf" 2>&1 9>&- &
  )
}

wait_healthy() { # service timeout-seconds launched(0/1)
  local svc="$1" timeout="$2" launched="$3" deadline pid=""
  deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    if healthy "$svc"; then return 0; fi
    if [[ "$launched" == 1 ]]; then
      # Give the pid file a moment to appear, then bail out early if the JVM died.
      [[ -n "$pid" ]] || pid="$(tr -dc '0-9' 2>/dev/null <"$(pid_file "$svc")" || true)"
      if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
        err "$svc exited during startup"
        return 1
      fi
    fi
    sleep 0.25
  done
  return 1
}

fail_start() { # service
  local svc="$1" logf="$LOG_DIR/$1.log"
  err "$svc is not answering on $(endpoint "$svc") (waited up to $(svc_timeout "$svc")s)"
  if [[ -f "$logf" ]]; then
    err "--- last lines of $logf:"
    tail -n 30 "$logf" >&2 || true
  fi
  exit 1
}

# The servers boot in parallel (yente.sh waits for the OpenSearch node
# before indexing): start_launch starts whatever is not already up,
# start_finish then waits for each one and reports.
start_launch() { # service -> prints ours|launched|foreign
  local svc="$1"
  if our_pid "$svc" >/dev/null; then
    echo ours
  elif port_open "$(svc_port "$svc")"; then
    # Someone else's server (or something else entirely) holds the port.
    echo foreign
  else
    launch "$svc" >/dev/null
    echo launched
  fi
}

start_finish() { # service state
  local svc="$1" state="$2" pid
  case "$state" in
    ours)
      wait_healthy "$svc" "$(svc_timeout "$svc")" 0 || fail_start "$svc"
      pid="$(our_pid "$svc" || echo '?')"
      log "$svc: already running (ours, pid $pid) at $(endpoint "$svc")"
      ;;
    foreign)
      wait_healthy "$svc" 10 0 ||
        die "$svc: port $(svc_port "$svc") is in use by something that does not answer like $svc"
      log "$svc: already running (not started by stack.sh) at $(endpoint "$svc")"
      ;;
    launched)
      wait_healthy "$svc" "$(svc_timeout "$svc")" 1 || fail_start "$svc"
      pid="$(our_pid "$svc" || echo '?')"
      log "$svc: started (pid $pid) at $(endpoint "$svc"), log $LOG_DIR/$svc.log"
      ;;
  esac
}

# Serialise concurrent start/stop runs on the same state directory.
take_lock() {
  mkdir -p "$RUN_DIR"
  if have flock; then
    exec 9>"$RUN_DIR/.lock"
    flock 9
  fi
}

# check_data refuses to use running servers of ours whose data is kept
# elsewhere than asked (make local's on disk, a test run's in memory):
# restarting them under whoever uses them could lose their data. Every
# server is checked before failing, so all the mismatches are reported.
check_data() {
  local svc have want var pid bad=0 keep=""
  for svc in "${SERVICES[@]}"; do
    have="$(running_data "$svc")"
    [[ -n "$have" ]] || continue
    want="$(data_setting "$svc")"
    [[ "$have" != "$want" ]] || continue
    pid="$(our_pid "$svc" || echo '?')"
    case "$svc" in
      dynamodb) var=DYNAMODB_DATA_DIR ;;
      elasticmq) var=ELASTICMQ_DATA_DIR ;;
    esac
    err "$svc (pid $pid, $(endpoint "$svc")) is already running with its data $(where "$have"); this start asks for its data $(where "$want") ($var=${!var:-})."
    if [[ "$have" == memory ]]; then keep+=" $var="; else keep+=" $var=$have"; fi
    bad=1
  done
  ((bad == 0)) && return 0
  err "to go on, either stop the stack and start again (make stack-stop; data kept in memory is lost),"
  err "or use it as it is: run again with$keep"
  exit 1
}

# where says where data is: "in memory" or "in <dir>".
where() { # data setting
  if [[ "$1" == memory ]]; then echo "in memory"; else echo "in $1"; fi
}

do_start() { # [service...] (default: all)
  take_lock
  local svc pid port
  local -a which=("$@")
  [[ ${#which[@]} -gt 0 ]] || which=("${SERVICES[@]}")
  for svc in "${which[@]}"; do
    case " ${SERVICES[*]} " in *" $svc "*) ;; *) die "unknown service: $svc" ;; esac
  done
  do_install
  check_data
  # A node or yente of ours started on other ports than this start asks
  # for (the ports changed since) is started again on these: they keep
  # nothing a fresh start does not rebuild.
  for svc in opensearch yente; do
    if [[ " ${which[*]} " == *" $svc "* ]] && pid="$(our_pid "$svc")"; then
      port="$(screening_port_of "$svc" "$pid")"
      if [[ -n "$port" && "$port" != "$(svc_port "$svc")" ]]; then
        log "$svc: restarting it on port $(svc_port "$svc") (it runs on $port)"
        stop_one "$svc"
      fi
    fi
  done
  # A yente of ours whose OpenSearch node is gone serves nothing (the new
  # node starts empty): started again, it indexes the dataset anew.
  if [[ " ${which[*]} " == *" opensearch "* ]] && our_pid yente >/dev/null && ! our_pid opensearch >/dev/null &&
    ! port_open "$OPENSEARCH_PORT"; then
    log "yente: restarting it, its OpenSearch node is gone"
    stop_one yente
  fi
  local -a states=()
  local node=""
  our_pid opensearch >/dev/null && node=ours
  for svc in "${which[@]}"; do
    # yente.sh may clear yente's index lock only on this stack's own node.
    if [[ "$svc" == yente && ("$node" == ours || "$node" == launched) ]]; then SCREENING_OWN_NODE=1; fi
    states+=("$(start_launch "$svc")")
    if [[ "$svc" == opensearch ]]; then node="${states[-1]}"; fi
  done
  local i
  for i in "${!which[@]}"; do
    start_finish "${which[$i]}" "${states[$i]}"
  done
}

# ------------------------------------------------------------------- stop ---

stop_one() { # service
  local svc="$1" file pid i
  file="$(pid_file "$svc")"
  if ! pid="$(our_pid "$svc")"; then
    if [[ -f "$file" ]]; then
      rm -f "$file"
      log "$svc: not running (removed stale pid file)"
    else
      log "$svc: not running (nothing started by stack.sh)"
    fi
    return
  fi
  signal_server "$svc" "$pid" TERM
  for ((i = 0; i < 60; i++)); do # up to 15 s
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    # Re-check it is still our process before escalating.
    if our_pid "$svc" >/dev/null; then
      err "$svc (pid $pid) ignored SIGTERM; sending SIGKILL"
      signal_server "$svc" "$pid" KILL
      sleep 0.5
    fi
  fi
  rm -f "$file"
  log "$svc: stopped (pid $pid)"
}

# signal_server sends the signal to the server's pid; for yente, to its
# process group when the pid leads one (setsid made it so), so that a
# reindex still running under yente.sh ends with it.
signal_server() { # service pid signal
  local svc="$1" pid="$2" sig="$3" pgid=""
  if [[ "$svc" == yente ]]; then
    pgid="$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ' || true)"
  fi
  if [[ -n "$pgid" && "$pgid" == "$pid" ]]; then
    kill "-$sig" -- "-$pid" 2>/dev/null || true
  else
    kill "-$sig" "$pid" 2>/dev/null || true
  fi
}

do_stop() { # [service...] (default: all; in reverse order, yente before its node)
  take_lock
  local svc i
  for svc in "$@"; do
    case " ${SERVICES[*]} " in *" $svc "*) ;; *) die "unknown service: $svc" ;; esac
  done
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
    svc="${SERVICES[$i]}"
    if [[ $# -eq 0 || " $* " == *" $svc "* ]]; then stop_one "$svc"; fi
  done
}

# ----------------------------------------------------------------- status ---

do_status() {
  local svc pid
  for svc in "${SERVICES[@]}"; do
    if pid="$(our_pid "$svc")"; then
      case "$svc" in
        opensearch | yente) log "$svc: running (ours, pid $pid) at $(endpoint "$svc"), data: $(screening_data "$svc")" ;;
        *) log "$svc: running (ours, pid $pid) at $(endpoint "$svc"), data: $(running_data "$svc")" ;;
      esac
    elif port_open "$(svc_port "$svc")"; then
      log "$svc: running (not ours) at $(endpoint "$svc")"
    else
      log "$svc: stopped"
    fi
  done
}

usage() {
  cat <<EOF
usage: $0 install|start [SERVICE...]|stop [SERVICE...]|status|data SERVICE|elasticmq-conf
  install  install Java/Maven if missing, fetch the jars and yente (no-op when up to date)
  start [SERVICE...]  install if needed, then start DynamoDB Local, ElasticMQ, OpenSearch
           and yente (all, or those named) unless already up
  stop [SERVICE...]  stop the servers this script started (all, or those named)
  status   show whether each server is running, who started it, and where its data is
  data SERVICE     print where the running server keeps its data (a directory, or memory)
  elasticmq-conf   print the ElasticMQ config start would write
services: ${SERVICES[*]}
state dir: $STACK_DIR
EOF
}

main() {
  case "${1:-}" in
    install) do_install ;;
    start) shift; do_start "$@" ;;
    stop) shift; do_stop "$@" ;;
    status) do_status ;;
    data) [[ -n "${2:-}" ]] || die "data: name a service"; running_data "$2" ;;
    elasticmq-conf) elasticmq_conf ;;
    -h | --help | help) usage ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

main "$@"
