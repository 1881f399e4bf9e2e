# CardAtlas. `make serve` runs the service, `make test` runs every test.
# Extra SwiftPM flags go in SWIFT_FLAGS, e.g. `make test SWIFT_FLAGS="--scratch-path .build-x"`.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
SWIFT ?= swift
SWIFT_FLAGS ?=
TEST_LOG ?= .build/test.log
# A test crash's report short enough to survive in a CI log's tail: the crashed thread only.
TEST_BACKTRACE ?= enable=yes,interactive=no,threads=crashed,registers=none,images=none

.PHONY: deps serve nodes test unit-test bench bench-build format lint
.PHONY: fuzz fuzz-build fuzz-check sanitize sanitize-thread sanitize-address

# The command fuzzer (docs/FUZZING.md): built with libFuzzer and AddressSanitizer in a scratch
# path of its own; what it finds goes under it, the seeds it starts from are in Fuzz/seeds.
FUZZ_SCRATCH ?= .build-fuzz
FUZZ_SECONDS ?= 600
# `make test` runs it this long.
FUZZ_TEST_SECONDS ?= 60
# Inputs of up to 4 KiB (every limit's error is reachable: see CommandFuzzer.limits), 10 s or
# 2 GB for any one input.
FUZZ_OPTIONS ?= -max_len=4096 -timeout=10 -rss_limit_mb=2048 -dict=Fuzz/resp.dict -print_final_stats=1
FUZZER = $(FUZZ_SCRATCH)/release/CommandFuzzer

# The suites run under ThreadSanitizer and AddressSanitizer: the code that shares memory across
# threads by hand (SpatialIndex, Keyspace and Server run with exclusivity checks off) and the code
# that reads what clients send. The protocol fuzzer runs shorter there, without its RSS bound
# (the sanitizers' allocators hold freed memory on purpose), and the real-data oracle test asks
# fewer queries (its brute force was a third of the AddressSanitizer run), and the rebuild test
# loads half its items.
# Their build has only these test targets (CARDATLAS_TEST_TARGETS, read by Package.swift), and
# line tables for debug information: reports keep their files and lines, the build is faster.
SANITIZE_BUILD_FLAGS ?= -Xswiftc -gline-tables-only
SANITIZE_TARGETS ?= ServerTests SpatialIndexTests KeyspaceTests CommandsTests RESPTests
empty :=
space := $(empty) $(empty)
comma := ,
SANITIZE_FILTER ?= $(subst $(space),|,$(strip $(SANITIZE_TARGETS)))
SANITIZE_ENV ?= CARDATLAS_PROTOCOL_FUZZ_SECONDS=15 CARDATLAS_PROTOCOL_FUZZ_RSS_MB=0 CARDATLAS_ORACLE_QUERIES=60 \
	CARDATLAS_REBUILD_LOADS=2
# Tests that wait at most 10 s for a reply and, under TSan's slowdown, time out rather than fail
# (they run in the plain suite): pipelined durable writes' order, kill -9 recovery, slow clients.
# The timed suites too, and those that load a million members or 60,000-star patterns: their
# data, not their concurrency, is what makes them long. PostgresStoreTests need the test PostgreSQL,
# which runs only beside the plain suites (and would match the filter's KeyspaceTests).
SANITIZE_SKIP ?= PostgresStoreTests|ReplyOrderTests|CrashRecoveryTests|CardCrashTests|PinCrashTests|VenueCrashTests|AssetCrashTests|slowClients|HostileArgumentTests|$(TIMED_SUITES)

## deps: install system and Python dependencies (idempotent; fast when already there)
deps:
	scripts/install-deps.sh

## serve: run the server on 127.0.0.1:7878 (RESP) and :8080 (HTTP card pages) with demo data (store in ./var)
serve: deps
	$(SWIFT) run $(SWIFT_FLAGS) -c release cardatlas serve --demo --http-port 8080 --hooks-allow-insecure

## test: build and run every test and print the summary, then the fuzzer for FUZZ_TEST_SECONDS,
## then the sanitized suites; fails on any failure, crash or sanitizer report
test: unit-test fuzz-check sanitize

# Suites whose assertions are about time or memory under load (a PING's latency beside large
# searches, a rate against a restarted server's, RSS, a sign-in's wait, known and unknown emails'
# times, a geocoder's request spacing as its server sees it): they run after the rest, one at a
# time, on an otherwise idle machine, since the parallel suite's own servers would be that load.
# The database restart and the failover too, whose two clusters, two nodes and four writers are
# such a load; and the lost COMMIT, whose relay's connections and 1 s outcome wait the parallel
# suite's load held up past its 120 s bound in a fresh-clone run (it passes alone and beside
# two busy loops).
TIMED_SUITES ?= BulkLoadIndexTests|FenceMemoryTests|LargeSearchTests|ClientMemoryTests|SortedSetOrderTests|sustainedWritesKeepTheWalBounded|SignInAttackTests|EmailEnumerationTests|concurrentCallsAndRetriesKeepTheRate|retriesAreRateLimitedToo|DatabaseRestartTests|FailoverTests|LostCommitTests

# The domain's suites run a second time with every daemon a node over a PostgreSQL database of
# its own (TestDaemon, CARDATLAS_TEST_STORE): the domain against both stores.
POSTGRES_DOMAIN_SUITES ?= DomainTests

## unit-test: build and run every test (the timed suites alone, after the rest; the domain's
## suites again over PostgreSQL), then print the summary
unit-test: deps bench-build
	@mkdir -p "$(dir $(TEST_LOG))"
	@set +e; \
	scripts/test-nominatim.sh begin; \
	scripts/test-postgres.sh begin; \
	{ $(SWIFT) build $(SWIFT_FLAGS) --product cardatlas && $(SWIFT) build $(SWIFT_FLAGS) --build-tests \
	  && export CARDATLAS_NOMINATIM_URL=$$(scripts/test-nominatim.sh url) \
	  && export CARDATLAS_POSTGRES_URL=$$(scripts/test-postgres.sh url) \
	  && { SWIFT_BACKTRACE="$(TEST_BACKTRACE)" $(SWIFT) test $(SWIFT_FLAGS) --skip-build --skip '$(TIMED_SUITES)'; \
	    plain=$$?; \
	    CARDATLAS_TEST_STORE=postgresql SWIFT_BACKTRACE="$(TEST_BACKTRACE)" $(SWIFT) test $(SWIFT_FLAGS) \
	      --skip-build --filter '$(POSTGRES_DOMAIN_SUITES)' --skip '$(TIMED_SUITES)'; \
	    postgres=$$?; [[ $$plain -ne 0 ]] && exit $$plain; exit $$postgres; }; } 2>&1 | tee "$(TEST_LOG)"; \
	status=$${PIPESTATUS[0]}; \
	scripts/test-nominatim.sh end; \
	CARDATLAS_POSTGRES_URL=$$(scripts/test-postgres.sh url 2>/dev/null) SWIFT_BACKTRACE="$(TEST_BACKTRACE)" \
	  $(SWIFT) test $(SWIFT_FLAGS) --skip-build --no-parallel --filter '$(TIMED_SUITES)' 2>&1 | tee -a "$(TEST_LOG)"; \
	timed=$${PIPESTATUS[0]}; \
	scripts/test-postgres.sh end; \
	[[ $$status -ne 0 ]] || status=$$timed; \
	scripts/test-summary.sh "$(TEST_LOG)" $$status; \
	exit $$status

## nodes: three nodes on one PostgreSQL (127.0.0.1:7878-7880): CARDATLAS_STORE's database, or a
## throwaway one of their own; Ctrl-C stops them
nodes: deps
	$(SWIFT) build $(SWIFT_FLAGS) -c release --product cardatlas
	scripts/run-nodes.sh

## bench-build: check that the benchmarks (a package of their own) still build against the code
bench-build:
	$(SWIFT) build --package-path Benchmarks

## bench: time the in-memory index against its baselines
bench:
	$(SWIFT) run $(SWIFT_FLAGS) -c release cardatlas-bench index

## format: format all Swift sources in place
format:
	$(SWIFT) format -i -r Sources Tests Benchmarks

## lint: check formatting without changing anything
lint:
	$(SWIFT) format lint -r Sources Tests

## fuzz-build: build the command fuzzer (libFuzzer, AddressSanitizer, optimised)
fuzz-build:
	$(SWIFT) build --scratch-path $(FUZZ_SCRATCH) -c release --product CommandFuzzer \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLIBFUZZER

## fuzz: run the command fuzzer for FUZZ_SECONDS (default 600); its corpus grows in
## $(FUZZ_SCRATCH)/corpus, crashing inputs are saved in $(FUZZ_SCRATCH)/crashes
fuzz: fuzz-build
	@mkdir -p $(FUZZ_SCRATCH)/corpus $(FUZZ_SCRATCH)/crashes
	$(FUZZER) $(FUZZ_OPTIONS) -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(FUZZ_SCRATCH)/crashes/ $(FUZZ_SCRATCH)/corpus Fuzz/seeds

## fuzz-check: the command fuzzer for FUZZ_TEST_SECONDS (default 60); fails on any crash
fuzz-check: deps
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS)

## sanitize: the suites in SANITIZE_FILTER under ThreadSanitizer, then AddressSanitizer
sanitize: sanitize-thread sanitize-address

## sanitize-thread, sanitize-address: one of them, in .build-tsan or .build-asan; fails on any
## test failure and on any report, the `cardatlas` processes' that the tests start included (their
## `cardatlas` on the system's malloc: the sanitizers replace it)
sanitize-thread sanitize-address: sanitize-%: deps
	@scratch=.build-$(if $(filter thread,$*),t,a)san; logs=$$PWD/$$scratch/sanitizer-logs; \
	export CARDATLAS_SYSTEM_MALLOC=1 CARDATLAS_TEST_TARGETS='$(subst $(space),$(comma),$(strip $(SANITIZE_TARGETS)))'; \
	rm -rf "$$logs"; mkdir -p "$$logs"; \
	$(SWIFT) build --scratch-path $$scratch --sanitize=$* --build-tests $(SANITIZE_BUILD_FLAGS); \
	set +e; \
	{ TSAN_OPTIONS="halt_on_error=1:log_path=$$logs/report:suppressions=$$PWD/scripts/tsan-suppressions.txt" \
	  ASAN_OPTIONS="detect_leaks=0:log_path=$$logs/report" SWIFT_BACKTRACE=enable=no \
	  $(SANITIZE_ENV) $(SWIFT) test --skip-build --scratch-path $$scratch --sanitize=$* \
	  --filter '$(SANITIZE_FILTER)' --skip '$(SANITIZE_SKIP)'; } 2>&1 | tee $$scratch/test.log; \
	status=$${PIPESTATUS[0]}; \
	scripts/test-summary.sh $$scratch/test.log $$status; \
	if compgen -G "$$logs/report.*" >/dev/null; then \
	  echo "==== $* sanitizer reports ($$logs) ===="; head -n 80 "$$logs"/report.*; status=1; \
	fi; \
	exit $$status
