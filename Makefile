# Entity Verification Service — every task a developer or CI runs.
#   make local   start the whole system locally with demo data (API on :3000, docs at /docs/)
#   make test    install what is missing, run every test
#   make bench   benchmarks, reported as ratios measured in one run
#   make fuzz    every fuzz target for FUZZTIME each
#   make docs    the API reference of shared/api/openapi.yaml: build/docs/index.html
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
# The CDK's jsii runtime boxes a "Node 20 is end-of-life" banner into every
# synthesis on this machine's Node.js 20 (the CDK app still runs on it; its
# tests say so if not): silenced, so a reader's screen shows our output.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
STACK     := bash local/stack/stack.sh
PORT      ?= 3000
# Integration tests share one DynamoDB Local; each test uses tables of its own.
GOTEST_FLAGS ?= -count=1 -timeout 20m

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## check the toolchain (Go must be installed; Java and Maven are installed with apt if missing)
	@command -v $(GO) >/dev/null || { echo "Go is required: https://go.dev/dl (see go.mod for the version)"; exit 1; }
	@$(GO) mod download

.PHONY: stack stack-install stack-stop stack-status
stack-install: ## fetch DynamoDB Local, ElasticMQ and OpenSearch from Maven Central and yente from PyPI (once)
	@$(STACK) install
stack: ## start DynamoDB Local (:8000), ElasticMQ (:9324), OpenSearch (:9200) and yente (:8765) unless running
	@$(STACK) start
stack-stop: ## stop the local services this project started (make stack's, and the test stack a bare go test starts)
	@$(STACK) stop
	@$(TEST_ENV) $(STACK) stop >/dev/null
stack-status:
	@$(STACK) status

# Lambda artifacts: build/<function>/bootstrap for provided.al2023. The flags
# make the bytes depend on the source alone (no paths, build ids or VCS stamps).
FUNCTIONS   := $(notdir $(wildcard functions/*))
BUILD_ARCH  ?= arm64
BUILD_DIR   ?= build
GO_BUILD    := CGO_ENABLED=0 GOOS=linux GOARCH=$(BUILD_ARCH) $(GO) build -tags lambda.norpc -trimpath -buildvcs=false -ldflags "-s -w -buildid="

.PHONY: build
build: tools ## build every function: build/<name>/bootstrap (linux/arm64; BUILD_ARCH=amd64 for this machine)
	@for f in $(FUNCTIONS); do \
	  mkdir -p $(BUILD_DIR)/$$f && $(GO_BUILD) -o $(BUILD_DIR)/$$f/bootstrap ./functions/$$f || exit 1; \
	done
	@echo "built $(FUNCTIONS) for linux/$(BUILD_ARCH) in $(BUILD_DIR)/"

# make local keeps its data on disk, under .local/data: DynamoDB Local's
# tables (-dbPath) and ElasticMQ's queues and messages (H2), so a server
# that dies and is started again (by up's supervisor, or by hand) has lost
# nothing. make test and make bench keep theirs in memory. If the stack that
# runs was started in memory (by make test or make stack), stack.sh refuses
# to use it for make local and says how to go on, rather than restart it
# under whoever is using it.
# Set DYNAMODB_DATA_DIR or ELASTICMQ_DATA_DIR (or LOCAL_DATA, the folder of
# both) to keep them elsewhere: make local uses what you set.
LOCAL_DATA         ?= $(CURDIR)/.local/data
DYNAMODB_DATA_DIR  ?= $(LOCAL_DATA)/dynamodb
ELASTICMQ_DATA_DIR ?= $(LOCAL_DATA)/elasticmq
LOCAL_ENV := DYNAMODB_DATA_DIR=$(DYNAMODB_DATA_DIR) ELASTICMQ_DATA_DIR=$(ELASTICMQ_DATA_DIR)

.PHONY: local local-reset
local: tools docs ## run the whole system locally with demo data (kept in .local/data); prints the API and docs addresses and a demo key
	@$(LOCAL_ENV) $(STACK) start
	@$(GO) build -o .local/bin/evs ./local
	@# exec'd, not go run: go run exits 1 on Ctrl-C even when up drained cleanly.
	@$(LOCAL_ENV) PORT=$(PORT) exec .local/bin/evs up

local-reset: ## stop make local's servers and wipe its data (.local/data, .local/demo.json, .local/demo.env)
	@for svc in dynamodb elasticmq; do \
	  case "$$($(STACK) data $$svc)" in "$(DYNAMODB_DATA_DIR)"|"$(ELASTICMQ_DATA_DIR)"|$(LOCAL_DATA)/*) $(STACK) stop $$svc ;; esac; \
	done
	@rm -rf "$(DYNAMODB_DATA_DIR)" "$(ELASTICMQ_DATA_DIR)" $(LOCAL_DATA) .local/demo.json .local/demo.env \
	  "$(dir $(DYNAMODB_DATA_DIR))records" "$(dir $(DYNAMODB_DATA_DIR))evidence"   # kept beside the tables (devstack.RecordsDir)
	@echo "removed $(DYNAMODB_DATA_DIR), $(ELASTICMQ_DATA_DIR) and the demo's state; make local starts afresh"

# staticcheck, pinned, installed once into the cache outside the clone.
STATICCHECK_VERSION := v0.8.2
TOOLS_BIN := $(HOME)/.cache/evs/bin
STATICCHECK := $(TOOLS_BIN)/staticcheck-$(STATICCHECK_VERSION)

$(STATICCHECK):
	@mkdir -p $(TOOLS_BIN)/tmp
	GOBIN=$(TOOLS_BIN)/tmp $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@mv $(TOOLS_BIN)/tmp/staticcheck $@

.PHONY: vet
vet: tools $(STATICCHECK) ## gofmt, go vet, staticcheck, and go.mod/go.sum tidy
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	@# The house rules of the layout (README "Layout"): only boot, devstack and
	@# local reach the store; the handlers' packages pull in no DynamoDB;
	@# nothing the local runner links imports testing.
	@bad=$$($(GO) list -f '{{.ImportPath}}: {{join .Imports " "}}' ./shared/... ./functions/... ./infra/... | grep -w 'evs/shared/store' | cut -d: -f1 | grep -v -e '/shared/boot$$' -e '/shared/devstack' -e '/shared/store$$' || true); \
	  test -z "$$bad" || { echo "only shared/boot, shared/devstack and local may import shared/store: $$bad"; exit 1; }
	@for p in api admin decisions delivery subscriptions reviewevents screening portal domain; do \
	  ! $(GO) list -deps ./shared/$$p | grep -q -e 'evs/shared/store$$' -e 'guregu/dynamo' -e 'service/dynamodb$$' || { echo "shared/$$p depends on the store or DynamoDB"; exit 1; }; \
	done
	@! $(GO) list -deps ./local/... | grep -qx testing || { echo "./local links package testing"; exit 1; }
	@! $(GO) list -deps ./shared/... | grep -q 'evs-kyb/evs/\(local\|infra\)' || { echo "a shared/ package imports local/ or infra/"; exit 1; }
	@$(GO) run ./infra/sam/cmd/gensam -o /dev/stdout | cmp -s - template.yaml || { echo "template.yaml is not what infra/sam generates: run make template"; exit 1; }

# make test starts the services it needs, and stops again those it started:
# a stack of its own (state in .local/test-stack, ports of its own, data in
# memory), whatever the shell says of make local's data folders, ports or
# stores, so a test never writes into yours and a running make local is
# left alone.
TEST_ENV := EVS_STACK_DIR=$(CURDIR)/.local/test-stack DYNAMODB_PORT=8200 ELASTICMQ_PORT=9524 ELASTICMQ_STATS_PORT=9525 \
	OPENSEARCH_PORT=9220 YENTE_PORT=8785 YENTE_URL= \
	DYNAMODB_DATA_DIR= ELASTICMQ_DATA_DIR= DYNAMODB_ENDPOINT= SQS_ENDPOINT= EVS_RECORDS_DIR= EVS_EVIDENCE_DIR= \
	EVS_TABLE_PREFIX= EVS_DEMO_DIR= PORT= SIM_PORT= LOG_LEVEL=
.PHONY: test
test: tools stack-install sfn-install browser-install vet lint-api sam-validate sam-build ## install what is missing and run every test
	@started=$$($(TEST_ENV) $(STACK) start | tee /dev/stderr | sed -n 's/^\([a-z]*\): started.*/\1/p' | tr '\n' ' '); \
	status=0; $(TEST_ENV) $(GO) test $(GOTEST_FLAGS) ./... || status=$$?; \
	if [ -n "$$started" ]; then $(TEST_ENV) $(STACK) stop $$started || true; fi; \
	exit $$status

# Benchmarks run on a DynamoDB Local of their own, started fresh and stopped
# after: a long-lived in-memory instance slows down as tables come and go,
# which would skew the numbers.
BENCH_ENV := EVS_STACK_DIR=$(CURDIR)/.local/bench-stack DYNAMODB_PORT=8100 ELASTICMQ_PORT=9424 ELASTICMQ_STATS_PORT=9425 \
	OPENSEARCH_PORT=9210 YENTE_PORT=8775 YENTE_URL= \
	DYNAMODB_DATA_DIR= ELASTICMQ_DATA_DIR= DYNAMODB_ENDPOINT= SQS_ENDPOINT= EVS_RECORDS_DIR= EVS_EVIDENCE_DIR= EVS_TABLE_PREFIX=

.PHONY: bench
bench: tools ## run the benchmarks (ratios measured in one run)
	@$(BENCH_ENV) $(STACK) start
	@status=0; $(BENCH_ENV) $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 30m ./... || status=$$?; \
	$(BENCH_ENV) $(STACK) stop >/dev/null || true; exit $$status

# Fuzz targets as <package>:<target>, run one after another for FUZZTIME
# each (go test -fuzz takes one target at a time). Their seed corpora, in
# testdata/fuzz/<target>/, also run as plain tests in make test. Go 1.26's
# fuzz coordinator can report "context deadline exceeded" as the time runs
# out while no input failed (go.dev/issue/75804, fixed in Go 1.27): that
# alone, with no failing input written to the corpus, is not a failure.
FUZZTIME ?= 10s
FUZZ_TARGETS := \
	./shared/api:FuzzParseListQuery \
	./shared/api:FuzzParseTimestamp \
	./shared/api:FuzzRegistrationRule \
	./shared/api:FuzzParsePathID \
	./shared/api:FuzzMatchPath \
	./shared/api:FuzzIdempotencyKey \
	./shared/api:FuzzProviderWebhookHeaders \
	./shared/webhooks:FuzzVerifyStandard \
	./shared/strictjson:FuzzDecode \
	./shared/strictjson:FuzzCheck \
	./shared/freetext:FuzzProblem \
	./shared/webhooks/receiver:FuzzVerifySignatureHeader

.PHONY: fuzz
fuzz: tools ## run every fuzz target for FUZZTIME (default 10s) each, one after another
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; corpus=$$pkg/testdata/fuzz/$$name; \
	  seeds=$$(ls $$corpus | wc -l); log=$$(mktemp); \
	  echo "== $$name ($$pkg, $(FUZZTIME))"; \
	  if ! $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg 2>&1 | tee $$log; then \
	    if grep -q 'context deadline exceeded' $$log && [ "$$(ls $$corpus | wc -l)" = "$$seeds" ]; then \
	      echo "$$name: Go's fuzztime race (go.dev/issue/75804), no failing input: not a failure"; \
	    else rm -f $$log; exit 1; fi; \
	  fi; \
	  rm -f $$log; \
	done

.PHONY: clean
clean: ## remove build output (keeps downloaded jars)
	rm -rf bin build .aws-sam cdk.out infra/cdk.out

# --- Local Step Functions ---
# local/workflow_test.go runs infra/statemachine/decision.asl.json in
# aws-local-stepfunctions (npm), pinned by local/stepfunctions/package-lock.json
# and installed into .tools/sfn by install.sh (a no-op once installed; npm's
# cache in ~/.npm serves a fresh clone).
.PHONY: sfn-install
sfn-install: ## install the local Step Functions interpreter (pinned) into .tools/sfn (once)
	@local/stepfunctions/install.sh

# --- Browser ---
# The console and the settings area are tested in a real browser: Debian's Chromium, driven
# from go test with chromedp (shared/webpage/webpagetest). install.sh installs it
# with apt-get once (a no-op when /usr/bin/chromium answers); CHROMIUM names
# another binary.
.PHONY: browser-install
browser-install: ## install Chromium from Debian's packages for the browser tests (once; needs root)
	@local/browser/install.sh

# Every page the browser tests visit is checked with axe-core (WCAG 2.1 A
# and AA), injected offline by shared/webpage/webpagetest from
# ~/.cache/evs/axe-core-<version>, outside the clone, where install.sh puts
# it, pinned by local/axe/package-lock.json (a no-op once installed; npm's
# cache in ~/.npm serves a fresh clone).
.PHONY: axe-install
axe-install: ## install axe-core (pinned) into ~/.cache/evs for the browser tests' accessibility check (once)
	@local/axe/install.sh

test: axe-install

# --- API description ---
# shared/api/openapi.yaml is the OpenAPI 3.1 description of the public API
# (embedded in the functions: GET /openapi.yaml). Redocly CLI, pinned by
# local/redocly/package-lock.json, is installed by install.sh into
# ~/.cache/evs/redocly-<version>, outside the clone (a no-op once installed;
# npm's cache in ~/.npm serves a fresh clone); local/redocly/run.sh runs it
# without telemetry or update checks. It needs Node.js 20.19+ or 22.12+.
API_DOC         := shared/api/openapi.yaml
API_LINT_CONFIG := shared/api/redocly.yaml
REDOCLY         := local/redocly/run.sh
# Not under BUILD_DIR: make local serves this very file at /docs/ (local/up.go
# names it too).
DOCS_HTML       := build/docs/index.html

.PHONY: redocly-install lint-api docs
redocly-install: ## install Redocly CLI (pinned) into ~/.cache/evs (once)
	@local/redocly/install.sh

lint-api: redocly-install ## lint shared/api/openapi.yaml with Redocly (shared/api/redocly.yaml); any error fails
	@$(REDOCLY) lint --lint-config error --config $(API_LINT_CONFIG) $(API_DOC)

# One self-contained HTML file: Redoc's scripts and styles inlined
# (--inlineBundle), so the page loads nothing from a CDN; checked below.
docs: redocly-install ## build the API reference from shared/api/openapi.yaml into build/docs/index.html (no CDN)
	@mkdir -p $(dir $(DOCS_HTML))
	@$(REDOCLY) build-docs --config $(API_LINT_CONFIG) --inlineBundle --output $(DOCS_HTML) $(API_DOC)
	@! grep -qiE '<(script|link)[^>]*(src|href)=.?(https?:)?//|@import[^;]*//|url\(.?https?://' $(DOCS_HTML) || \
	  { echo "docs: $(DOCS_HTML) loads a script or style from elsewhere; it must be self-contained"; rm -f $(DOCS_HTML); exit 1; }
	@echo "wrote $(DOCS_HTML) ($$(du -k $(DOCS_HTML) | cut -f1) KiB, self-contained)"

# --- SAM ---
# template.yaml is the SAM template of the system the CDK app in infra/
# describes. The SAM CLI lives in a git-ignored virtualenv, pinned. It needs
# no AWS account for what is done here and no network once installed: no
# credentials reach it (the variables are unset, the shared files are
# /dev/null), telemetry is off, the region is given, and SAM_HOME (its app
# directory, normally ~/.aws-sam) records a version check far in the future so
# it never asks PyPI whether it is current.
SAM_VERSION := 1.170.0
SAM_VENV    := .tools/sam-venv
SAM_STAMP   := $(SAM_VENV)/.installed-aws-sam-cli-$(SAM_VERSION)
SAM_HOME    := $(CURDIR)/.tools/sam-home
SAM_REGION  := us-east-1
# MAKEFLAGS and MAKELEVEL are dropped so that the make sam build runs for
# each function (build-<LogicalId> below) is a fresh one, not a child of this.
SAM         := env -u MAKEFLAGS -u MAKELEVEL -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
               AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
               SAM_CLI_TELEMETRY=0 __SAM_CLI_APP_DIR=$(SAM_HOME) AWS_DEFAULT_REGION=$(SAM_REGION) \
               $(CURDIR)/$(SAM_VENV)/bin/sam
PYTHON      ?= python3

# template.yaml is generated from the catalogue (shared/schema, shared/deploy,
# infra/stack) by infra/sam; infra/sam's TestTemplateIsGenerated fails, in
# make test, when the committed file is not what this writes.
.PHONY: template
template: ## regenerate template.yaml from the catalogue (infra/sam)
	@$(GO) run ./infra/sam/cmd/gensam -o template.yaml
	@echo "wrote template.yaml"

# shared/apiclient/client.gen.go is the Go client oapi-codegen (pinned in
# go.mod with the tool directive, run as go tool oapi-codegen) generates from
# shared/api/openapi.yaml, after shared/apiclient/internal/clientgen spells its
# boolean subschemas as objects for oapi-codegen's loader. shared/apiclient's
# TestClientIsGenerated fails, in make test, when the committed file is not
# what this writes.
.PHONY: generate
generate: tools ## regenerate the Go API client shared/apiclient from shared/api/openapi.yaml (oapi-codegen)
	@$(GO) run ./shared/apiclient/internal/clientgen/cmd/genclient -o shared/apiclient/client.gen.go
	@echo "wrote shared/apiclient/client.gen.go"

# moto's S3 server, pinned in local/moto/install.sh, is installed by it into
# ~/.cache/evs/moto-<version>, outside the clone (a no-op once installed);
# only shared/blob's S3 test runs it, on a free port of its own.
.PHONY: moto-install
moto-install: ## install moto's S3 server (pinned) into ~/.cache/evs (once), for shared/blob's S3 test
	@local/moto/install.sh

test: moto-install

# checkov, pinned in local/checkov/install.sh, is installed by it into
# ~/.cache/evs/checkov-<version>, outside the clone (a no-op once installed);
# infra/stack's TestCheckov runs it over the production stack's synthesized
# template and template.yaml, failing on any check infra/checkov.yaml does
# not skip.
.PHONY: checkov-install
checkov-install: ## install checkov (pinned) into ~/.cache/evs (once), for infra/stack's TestCheckov
	@local/checkov/install.sh

test: checkov-install

.PHONY: sam-install sam-validate sam-build
sam-install: $(SAM_STAMP) $(SAM_HOME)/metadata.json ## install the SAM CLI (pinned) into .tools/sam-venv (once)

$(SAM_HOME)/metadata.json:
	@mkdir -p $(@D)
	@echo '{"telemetryEnabled": false, "lastVersionCheck": 4102444800.0}' > $@

# The stamp names the version: changing SAM_VERSION reinstalls, anything else
# is a no-op. pip serves what it may from its cache (~/.cache/pip).
$(SAM_STAMP):
	@command -v $(PYTHON) >/dev/null || { echo "Python 3 is required for the SAM CLI"; exit 1; }
	@rm -f $(SAM_VENV)/.installed-*
	@test -x $(SAM_VENV)/bin/pip || $(PYTHON) -m venv $(SAM_VENV)
	@$(SAM_VENV)/bin/pip install --quiet --disable-pip-version-check "aws-sam-cli==$(SAM_VERSION)"
	@v=$$(SAM_CLI_TELEMETRY=0 $(SAM_VENV)/bin/sam --version) && echo "$$v in $(SAM_VENV)" && \
	  [[ "$$v" == *" $(SAM_VERSION)" ]] || { echo "expected SAM CLI $(SAM_VERSION)"; exit 1; }
	@touch $@

# make test also runs local/rie_test.go, which takes the Lambda Runtime
# Interface Emulator from the SAM CLI's package.
test: sam-install

sam-validate: sam-install ## lint template.yaml with cfn-lint through SAM (offline, no credentials)
	@$(SAM) validate --lint --template template.yaml --region $(SAM_REGION)

# sam build runs `make build-<LogicalId>` at the repository root for every
# function of template.yaml (BuildMethod: makefile), with ARTIFACTS_DIR set to
# .aws-sam/build/<LogicalId>. Then every artifact is compared, byte for byte,
# with what `make build` makes for linux/arm64 (in .aws-sam/make-build).
sam-build: sam-install ## sam build every function of template.yaml into .aws-sam/, and check it is make build's bytes
	@BUILD_ARCH=arm64 $(SAM) build --template template.yaml --region $(SAM_REGION) --parallel
	@$(MAKE) --no-print-directory build BUILD_ARCH=arm64 BUILD_DIR=.aws-sam/make-build >/dev/null
	@for f in $(FUNCTIONS); do \
	  id=$$(echo "$$f" | sed -E 's/(^|-)([a-z])/\U\2/g')Function; \
	  cmp -s .aws-sam/build/$$id/bootstrap .aws-sam/make-build/$$f/bootstrap || \
	    { echo "sam-build: .aws-sam/build/$$id/bootstrap is not make build's functions/$$f"; exit 1; }; \
	  echo "  $$id  $$(sha256sum < .aws-sam/build/$$id/bootstrap | cut -c1-16)…  = make build $$f"; \
	done

# The targets sam build runs: build-<LogicalId>, the logical id turned back
# into the directory under functions/ (ListEntitiesFunction -> list-entities),
# built with make build's go build for the template's architecture, arm64.
build-%Function:
	@test -n "$${ARTIFACTS_DIR:-}" || { echo "$@ is run by sam build (ARTIFACTS_DIR is not set)"; exit 1; }
	@test "$(BUILD_ARCH)" = arm64 || { echo "$@: template.yaml builds for arm64, not BUILD_ARCH=$(BUILD_ARCH)"; exit 1; }
	@f=$$(echo '$*' | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]'); \
	  test -f functions/$$f/main.go || { echo "$@: no functions/$$f/main.go"; exit 1; }; \
	  $(GO_BUILD) -o "$$ARTIFACTS_DIR/bootstrap" ./functions/$$f

# --- CDK ---
# infra/ is the CDK (Go) app of the service. The CDK CLI, pinned by
# local/cdk/package.json and package-lock.json, is installed by
# local/cdk/install.sh into ~/.cache/evs/aws-cdk-<version>, outside the clone
# (a no-op once installed), and run by local/cdk/run.sh without telemetry or
# version checks: aws-cdk-lib 2.270 writes cloud assembly schema 54, which
# CLI 2.1148.1 reads (it bundles schema 55). Do not take npm's "latest"
# (3.0.0, an older schema). `make synth` needs no AWS account: no
# credentials reach it, nothing is looked up, the stack leaves account and
# region to the deployment. Context: STAGE (dev), ALARM_EMAIL, and CONTEXT for
# any other key, e.g. CONTEXT="YenteThreshold=0.8 apiThrottleRate=50".
CDK_OUT     := cdk.out
STAGE       ?= dev
ALARM_EMAIL ?=
CONTEXT     ?=
CDK_CONTEXT := -c stage=$(STAGE) $(if $(ALARM_EMAIL),-c alarmEmail=$(ALARM_EMAIL)) $(foreach kv,$(CONTEXT),-c $(kv))
CDK         := bash $(CURDIR)/local/cdk/run.sh
CDK_FLAGS   := --no-notices --no-version-reporting --output $(CDK_OUT)
CDK_OFFLINE := env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
               AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
# Extra flags for cdk deploy, e.g. CDK_DEPLOY_FLAGS="--require-approval never" in CI.
CDK_DEPLOY_FLAGS ?=

.PHONY: cdk-install synth deploy rehearse
cdk-install: ## install the CDK CLI (pinned) into ~/.cache/evs (once)
	@local/cdk/install.sh

release-template: ## when a release is cut: keep the production stack's template in infra/released/, which make test compares the stack with (no stateful resource replaced)
	@$(GO) test ./infra/stack -run '^TestNoStatefulReplacementSinceTheRelease$$' -count=1 -record-release
	@echo "wrote infra/released/evs-production.template.json"

synth: build cdk-install ## synthesize the CDK stack evs-$(STAGE) into infra/cdk.out (offline, no credentials)
	@cd infra && $(CDK_OFFLINE) $(CDK) synth --quiet --no-lookups $(CDK_FLAGS) $(CDK_CONTEXT)
	@echo "synthesized evs-$(STAGE): infra/$(CDK_OUT)/evs-$(STAGE).template.json"

deploy: build cdk-install ## deploy the CDK stack evs-$(STAGE) (AWS credentials; cdk bootstrap once per account and region)
	@cd infra && $(CDK) deploy --all $(CDK_FLAGS) $(CDK_CONTEXT) $(CDK_DEPLOY_FLAGS)

# The deploy rehearsal (infra/README.md, "Deploy rehearsal"): moto's
# CloudFormation (local/moto/rehearse.sh) takes cdk bootstrap and cdk deploy
# --all of the production stage, every catalogue resource is checked through
# the service APIs, then a change is deployed and checked in place. make test
# runs the same as infra/rehearse's TestDeployRehearsal.
rehearse: build cdk-install moto-install ## rehearse a deploy of the CDK app on moto (a few minutes; no AWS account)
	@$(GO) run ./infra/rehearse/cmd/rehearse

test: build cdk-install
