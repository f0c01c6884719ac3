#!/usr/bin/env bash
# Runs the stack's yente service (local/stack/stack.sh launches it, with
# yente's settings in the environment: engine.sh's yente_env):
#
#   yente.sh <venv>/bin/yente
#
# waits for the OpenSearch node at YENTE_INDEX_URL, indexes the dataset of
# YENTE_MANIFEST (yente reindex: it exits non-zero if indexing fails), and
# then becomes `yente serve` (exec: the pid stack.sh recorded is the
# server's). With EVS_YENTE_CLEAR_LOCK=1 (the node is the stack's own) it
# first deletes yente's lock index: a reindex killed midway leaves its lock
# behind for ten minutes, during which every reindex is skipped, silently
# (exit status 0).
set -euo pipefail

yente=${1:?usage: yente.sh <venv>/bin/yente}
index_url=${YENTE_INDEX_URL:?YENTE_INDEX_URL is not set}
wait_s=${EVS_YENTE_INDEX_WAIT:-120}

log() { printf '=== yente.sh: %s\n' "$*"; }

deadline=$((SECONDS + wait_s))
until curl -sf --max-time 3 "$index_url/_cluster/health?wait_for_status=yellow&timeout=2s" >/dev/null 2>&1; do
  if ((SECONDS >= deadline)); then
    log "OpenSearch does not answer at $index_url after ${wait_s}s"
    exit 1
  fi
  sleep 0.5
done
log "OpenSearch answers at $index_url"

if [[ "${EVS_YENTE_CLEAR_LOCK:-}" == 1 ]]; then
  curl -s --max-time 10 -X DELETE "$index_url/${YENTE_INDEX_NAME:-yente}-locks" >/dev/null 2>&1 || true
fi

start=$SECONDS
log "indexing $YENTE_MANIFEST (yente reindex)"
"$yente" reindex
log "indexed in $((SECONDS - start))s; serving on ${YENTE_HOST:-}:${YENTE_PORT:-}"
exec "$yente" serve
