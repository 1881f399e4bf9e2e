# CardAtlas. `make serve` runs the service, `make test` runs every test.
# Extra SwiftPM flags go in SWIFT_FLAGS, e.g. `make test SWIFT_FLAGS="--scratch-path .build-x"`.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
SWIFT ?= swift
SWIFT_FLAGS ?=
TEST_LOG ?= .build/test.log
# A test crash's report short enough to survive in a CI log's tail: the crashed thread only.
TEST_BACKTRACE ?= enable=yes,interactive=no,threads=crashed,registers=none,images=none

.PHONY: deps serve test bench bench-build format lint

## deps: install system and Python dependencies (idempotent; fast when already there)
deps:
	scripts/install-deps.sh

## serve: run the server on 127.0.0.1:7878 with demo data (store in ./var)
serve: deps
	$(SWIFT) run $(SWIFT_FLAGS) -c release cardatlas serve --demo

## test: build and run every test, then print the summary
test: deps bench-build
	@mkdir -p "$(dir $(TEST_LOG))"
	@set +e; \
	{ $(SWIFT) build $(SWIFT_FLAGS) --product cardatlas && SWIFT_BACKTRACE="$(TEST_BACKTRACE)" $(SWIFT) test $(SWIFT_FLAGS); } 2>&1 | tee "$(TEST_LOG)"; \
	status=$${PIPESTATUS[0]}; \
	scripts/test-summary.sh "$(TEST_LOG)" $$status; \
	exit $$status

## bench-build: check that the benchmarks (a package of their own) still build against the code
bench-build:
	$(SWIFT) build --package-path Benchmarks

## bench: time the in-memory index against its baselines
bench:
	$(SWIFT) run $(SWIFT_FLAGS) -c release cardatlas bench index

## format: format all Swift sources in place
format:
	$(SWIFT) format -i -r Sources Tests Benchmarks

## lint: check formatting without changing anything
lint:
	$(SWIFT) format lint -r Sources Tests
