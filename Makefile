# Entity Verification Service — every task a developer or CI runs.
#   make local   start the whole system locally with demo data (API on :3000)
#   make test    install what is missing, run every test
#   make bench   benchmarks, reported as ratios measured in one run
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
STACK     := bash local/stack/stack.sh
PORT      ?= 3000
# Integration tests share one DynamoDB Local; each test uses tables of its own.
GOTEST_FLAGS ?= -count=1 -timeout 20m

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## check the toolchain (Go must be installed; Java and Maven are installed with apt if missing)
	@command -v $(GO) >/dev/null || { echo "Go is required: https://go.dev/dl (see go.mod for the version)"; exit 1; }
	@$(GO) mod download

.PHONY: stack stack-install stack-stop stack-status
stack-install: ## fetch DynamoDB Local and ElasticMQ from Maven Central (once)
	@$(STACK) install
stack: ## start DynamoDB Local (:8000) and ElasticMQ (:9324) unless running
	@$(STACK) start
stack-stop: ## stop the local services this project started
	@$(STACK) stop
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

.PHONY: local
local: tools stack ## run the whole system locally with demo data; prints the API address and a demo key
	@PORT=$(PORT) $(GO) run ./local up

.PHONY: vet
vet: tools
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

# make test starts the services it needs, and stops again those it started.
.PHONY: test
test: tools stack-install vet ## install what is missing and run every test
	@started=$$($(STACK) start | tee /dev/stderr | sed -n 's/^\([a-z]*\): started.*/\1/p' | tr '\n' ' '); \
	status=0; $(GO) test $(GOTEST_FLAGS) ./... || status=$$?; \
	if [ -n "$$started" ]; then $(STACK) stop $$started || true; fi; \
	exit $$status

# Benchmarks run on a DynamoDB Local of their own, started fresh and stopped
# after: a long-lived in-memory instance slows down as tables come and go,
# which would skew the numbers.
BENCH_ENV := EVS_STACK_DIR=$(CURDIR)/.local/bench-stack DYNAMODB_PORT=8100 ELASTICMQ_PORT=9424 ELASTICMQ_STATS_PORT=9425

.PHONY: bench
bench: tools ## run the benchmarks (ratios measured in one run)
	@$(BENCH_ENV) $(STACK) start
	@status=0; $(BENCH_ENV) $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 30m ./... || status=$$?; \
	$(BENCH_ENV) $(STACK) stop >/dev/null || true; exit $$status

.PHONY: clean
clean: ## remove build output (keeps downloaded jars)
	rm -rf bin build .aws-sam cdk.out infra/cdk.out
